"""`trpg-arena mcp`: the session layer as a Model Context Protocol server, for AI game masters and agents.

An MCP host (a desktop assistant, an AI-DM bot, an agent framework) starts sessions, reads the open
decision with its legal actions in GM sentences, asks agents for proposals with reasons, confirms,
overrides, enters dice and undoes, on the same stored sessions as the terminal and the browser.
`table` does the work, `app` builds the SDK's `MCPServer`, `run` serves it over stdio or HTTP.
"""
