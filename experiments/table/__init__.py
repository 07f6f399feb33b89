"""The GM's table at the terminal: screens, the decision loop, stored sessions and end-of-combat files."""
