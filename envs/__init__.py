"""trpg-arena envs."""
