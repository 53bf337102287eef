package assembler

// ArgReads is how many argument rows a, deciding the calls it has applied
// read from its view (the others' bytes were in its memory).
func ArgReads(a *Assembler) int { return a.argReads }
