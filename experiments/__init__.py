"""trpg-arena experiments."""
