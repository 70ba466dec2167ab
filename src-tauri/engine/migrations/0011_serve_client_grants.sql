-- Schema v11: "always allow" answers given in the window for an app using the local endpoint
-- (mcp/host/approval.rs): one row per client, server and tool. They go with the client (its
-- token revoked) and with the server (removed, or replaced: see McpHost::clear_app_grants).

CREATE TABLE serve_client_grants (
    client_id TEXT NOT NULL REFERENCES serve_clients (id) ON DELETE CASCADE,
    server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
    tool      TEXT NOT NULL,
    PRIMARY KEY (client_id, server_id, tool)
) STRICT;
