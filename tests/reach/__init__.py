"""Tests of the MCP server and the OpenAI-compatible memory proxy."""
