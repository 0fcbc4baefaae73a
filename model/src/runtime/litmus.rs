//! Litmus programs as kernel models (see `explore`).
