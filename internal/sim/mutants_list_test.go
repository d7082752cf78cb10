package sim

// mutants are the bugs TestMutants plants in the core, one at a time.
var mutants = []mutant{}
