"""The games, one module each: rules compiled with numba, and a `State` facade with notation."""
