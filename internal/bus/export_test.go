package bus

// What the tests of package bus_test read of the server log's limit.
const ViolationsMax = violationsMax

var ViolationsEvery = violationsEvery
