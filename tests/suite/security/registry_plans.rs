//! Security, second pass: hostile registry entries are refused before anything is saved or runs (issue 31, points 2 and 7).
