//! Security, second pass: install links and every install confirmation: what will run is what is shown (issue 31, points 1 and 7).
