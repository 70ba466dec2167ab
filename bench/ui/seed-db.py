"""Fills a Switchboard database (already migrated by the app) with CONVERSATIONS conversations
of MESSAGES messages each, plus one of 2,000 messages (`bench-long`, the oldest), in one
transaction of batched inserts: the app benchmark's history.

Usage: python3 seed-db.py <switchboard.db> [conversations] [messages per conversation]
"""
import json
import sqlite3
import sys
import time

db, conversations = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
per = int(sys.argv[3]) if len(sys.argv) > 3 else 4
now = int(time.time() * 1000)
con = sqlite3.connect(db)
con.execute("PRAGMA journal_mode=WAL")
conv_rows, message_rows = [], []
for c in range(-1, conversations):
    cid = "bench-long" if c < 0 else f"bench-c{c:06d}"
    at = now - (conversations + 1 - c) * 60_000
    per_here = 2000 if c < 0 else per
    parent = None
    for m in range(per_here):
        mid = f"{cid}-m{m}"
        role = "user" if m % 2 == 0 else "assistant"
        text = (f"Question {m} of conversation {c}: how do I configure the server?" if role == "user"
                else f"Answer {m}: set the **command** and `args`, then restart it. Conversation {c}.\n\n"
                     "- check the log\n- restart the server\n\n```json\n{\"command\": \"npx\", \"args\": [\"server\"]}\n```")
        message_rows.append((mid, cid, parent, role, json.dumps([{"type": "text", "text": text}]), "complete",
                             None if role == "user" else "fake-model", at + m, at + m))
        parent = mid
    title = "A long conversation (2,000 messages)" if c < 0 else f"Conversation {c}: server setup notes"
    conv_rows.append((cid, title, at, at + per_here, parent))
with con:
    con.executemany("INSERT INTO conversations (id, title, created_at, updated_at, head_id) VALUES (?, ?, ?, ?, ?)", conv_rows)
    con.executemany("INSERT INTO messages (id, conversation_id, parent_id, role, content, status, model, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", message_rows)
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
print(f"seeded {len(conv_rows)} conversations, {len(message_rows)} messages")
