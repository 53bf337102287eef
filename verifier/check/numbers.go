package check

// Numbers: finding each number with its unit in a claim (or in a string of
// evidence), and checking it against the evidence numbers — directly, after
// unit conversion, within the tolerance and the rounding the claim is
// written in, against a bound ("more than 10") or range ("3-5 days"), or as
// a simple derived value (a sum, difference, ratio, product, percentage,
// count, average of evidence fields).
