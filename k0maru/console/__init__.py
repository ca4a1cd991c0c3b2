"""The web console (`k0maru ui`): a Flask app over the same index file as the CLI and MCP server."""
