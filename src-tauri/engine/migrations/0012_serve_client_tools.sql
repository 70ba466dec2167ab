-- Schema v12: a client's tool allow-list (mcp/serve): a JSON object from a server's name to the
-- names of the tools of that server the client may see and call. A server not in it (or NULL)
-- keeps all its tools; the servers it reaches are still those of `servers`.

ALTER TABLE serve_clients ADD COLUMN tools TEXT;
