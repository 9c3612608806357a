//! Unit-level generators (symbolic explorer, unit fuzzer) behind one trait. (Not built yet: see ARCHITECTURE.md.)
