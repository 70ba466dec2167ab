//! Security, second pass: remote transports, OAuth, downloads and provider answers: no cross-origin redirects, bounded reads (issue 31, points 3 and 6).
