//! Crash safety: `switchboard chat` is killed with SIGKILL in the middle of a streamed answer
//! twenty times. The database must pass `PRAGMA integrity_check`, keep every committed
//! message, mark each half-written answer interrupted on the next start (keeping its
//! checkpointed text), and the conversation must still make a valid request afterwards.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use switchboard_engine::agent::{ApprovalAnswer, TurnEnd};
use switchboard_engine::store::{MessageStatus, Role};

use super::model::{Model, Say};
use super::*;

const KILLS: usize = 20;

/// Starts the CLI, waits until some answer text reached its stdout plus `extra`, then kills it.
fn chat_and_kill(data: &Path, conv: &str, prompt: &str, extra: Duration) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("--data-dir")
        .arg(data)
        .args([
            "chat",
            "--server-wait",
            "60",
            "--conversation",
            conv,
            prompt,
        ])
        .env_remove("SWITCHBOARD_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 2];
    stdout
        .read_exact(&mut first)
        .expect("the CLI printed no answer text");
    std::thread::sleep(extra);
    child.kill().unwrap();
    child.wait().unwrap();
    String::from_utf8_lossy(&first).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn killing_the_cli_mid_answer_twenty_times_loses_no_committed_message() {
    let dir = tempfile::tempdir().unwrap();
    let slow = || {
        Say::Slow(
            (0..40).map(|i| format!("w{i} ")).collect(),
            Duration::from_millis(60),
        )
    };
    let mut script: Vec<Say> = (0..KILLS).map(|_| slow()).collect();
    script.push(Say::Text("recovered".into()));
    let model = Model::start(script).await;
    let conv = {
        let engine = engine(dir.path()).await;
        let conv = conversation(&engine, &model.url, Wire::OpenAi).await;
        engine.shutdown().await;
        conv
    };
    for i in 0..KILLS {
        // 0 to 1.9 s after the first word: before and after the one-second checkpoint.
        let extra = Duration::from_millis((i as u64 * 97) % 1900);
        let data = dir.path().to_owned();
        let c = conv.clone();
        let printed = tokio::task::spawn_blocking(move || {
            chat_and_kill(&data, &c, &format!("question {i}"), extra)
        })
        .await
        .unwrap();
        assert_eq!(printed, "w0");
    }

    let engine = engine(dir.path()).await;
    let check: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&open_raw(dir.path()).await)
        .await
        .unwrap();
    assert_eq!(check, "ok");
    let branch = engine.agent().conversation_branch(&conv).await.unwrap();
    let users: Vec<String> = branch
        .iter()
        .filter(|m| m.role == Role::User)
        .map(history_text)
        .collect();
    let expected: Vec<String> = (0..KILLS).map(|i| format!("question {i}")).collect();
    assert_eq!(users, expected, "every user message survives, in order");
    let answers: Vec<_> = branch
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .collect();
    assert_eq!(answers.len(), KILLS);
    assert!(
        answers
            .iter()
            .all(|m| m.status == MessageStatus::Interrupted)
    );
    let checkpointed = answers
        .iter()
        .filter(|m| history_text(m).starts_with("w0 "))
        .count();
    assert!(
        checkpointed > 0,
        "answers killed after a second keep their checkpointed text"
    );

    let ran = send(&engine, &conv, "still there?", ApprovalAnswer::Deny).await;
    assert_eq!(ran.end, TurnEnd::Done);
    assert_eq!(model.rejected(), Vec::<String>::new());
    engine.shutdown().await;
}

fn history_text(m: &switchboard_engine::store::Message) -> String {
    m.content
        .iter()
        .filter_map(|p| match p {
            switchboard_engine::vocab::content::ContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

async fn open_raw(dir: &Path) -> sqlx::SqlitePool {
    let db = Paths::under(dir).database();
    let opts = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(db)
        .read_only(true);
    sqlx::SqlitePool::connect_with(opts).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_process_on_the_profile_leaves_a_live_streaming_answer_alone() {
    use switchboard_engine::store::{NewConversation, NewMessage};
    let dir = tempfile::tempdir().unwrap();
    let live = engine(dir.path()).await;
    assert!(live.owns_profile());
    let conv = live
        .store()
        .create_conversation(NewConversation::default())
        .await
        .unwrap();
    let streaming = live
        .store()
        .append_message(NewMessage {
            conversation_id: conv.id.clone(),
            parent_id: None,
            role: Role::Assistant,
            content: vec![],
            status: MessageStatus::Streaming,
            model: Some("m".into()),
        })
        .await
        .unwrap();

    // A terminal command or a second launch opens the same profile while the answer streams.
    let second = engine(dir.path()).await;
    assert!(!second.owns_profile());
    let status = second
        .store()
        .get_message(&streaming.id)
        .await
        .unwrap()
        .status;
    assert_eq!(
        status,
        MessageStatus::Streaming,
        "a live answer is not a crash's leftover"
    );
    second.shutdown().await;
    drop(second);

    // The window ends without finishing it (a crash): the next start recovers it.
    live.shutdown().await;
    drop(live);
    let next = engine(dir.path()).await;
    assert!(next.owns_profile());
    let status = next
        .store()
        .get_message(&streaming.id)
        .await
        .unwrap()
        .status;
    assert_eq!(status, MessageStatus::Interrupted);
}
