//! Lifter: writes unit-level values back into system inputs, re-runs the program and classifies the outcome. (Not built yet: see ARCHITECTURE.md.)
