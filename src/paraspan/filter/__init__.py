"""filter."""
