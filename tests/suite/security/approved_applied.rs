//! Security, second pass: what the user approved is what is applied: plan and bundle digests, masked values after an identity change (issue 31, point 4).
