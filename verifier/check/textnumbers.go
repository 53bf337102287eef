package check

// ---- numbers (and dates) the evidence writes inside keys and strings -------
