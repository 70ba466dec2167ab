-- Schema v3: tool calls a server runs as tasks. The task's handle is kept until the task
-- ends, so a task outlives an app restart: on start the engine asks the server for its
-- status and completes the tool result in `message_id` (the tool message) when it finishes.

CREATE TABLE tool_tasks (
    message_id      TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    call_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    server          TEXT NOT NULL,
    tool            TEXT NOT NULL,
    task_id         TEXT NOT NULL,
    status          TEXT NOT NULL
                    CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
    status_message  TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (message_id, call_id)
) STRICT;

CREATE INDEX tool_tasks_by_status ON tool_tasks (status);
CREATE INDEX tool_tasks_by_call ON tool_tasks (call_id);
