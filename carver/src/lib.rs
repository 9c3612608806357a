//! Carver: turns context snapshots into parameterized unit tests and maps their arguments to fragments of the system input. (Not built yet: see ARCHITECTURE.md.)
