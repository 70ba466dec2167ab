//! The TypeScript mirror of the IPC types, written to `ui/src/bindings.ts`. A test fails when
//! the file is stale; `SWITCHBOARD_BLESS=1 cargo test bindings` rewrites it.

use crate::commands::compare::CompareBatch;
use crate::commands::local_server::NewServeClient;
use crate::desktop::quick::QuickContext;
use crate::desktop::update::{AvailableUpdate, CheckOutcome, UpdateProgress, UpdateSettings};
use crate::desktop::{DesktopSettings, DesktopStatus};
use switchboard_engine::agent::SamplingModel;
use switchboard_engine::agent::assistants::Starter;
use switchboard_engine::agent::upload::PreparedFile;
use switchboard_engine::agent::{
    ApprovalAnswer, CallView, ChatEvent, ChatSettings, CompareModel, ReasoningEffort, Thinking,
    ToolCost, ToolTokens, TurnEnd,
};
use switchboard_engine::backups::{BackupInfo, BackupReason, BackupsOverview};
use switchboard_engine::export::assistants::AssistantImport;
use switchboard_engine::export::{
    ExportFormat, ExportProgress, ExportRequest, ExportScope, ExportSummary, ImportResult,
    ImportSource,
};
use switchboard_engine::knowledge::{IndexProgress, IndexReport, KnowledgeEvent};
use switchboard_engine::local_ollama::LocalOllama;
use switchboard_engine::mcp::CloseReason;
use switchboard_engine::mcp::LinkPreview;
use switchboard_engine::mcp::LocalServerStatus;
use switchboard_engine::mcp::TrustNote;
use switchboard_engine::mcp::{
    AppCall, AppCallOutcome, ImportAction, ImportPreview, ImportReport, Installed,
    InteractionAnswer, InteractionEvent, PreviewEntry, RootInfo, ServerLogs, ServerState,
    ServerStatus, SupervisorEvent,
};
use switchboard_engine::mcp::{AppCsp, AppView};
use switchboard_engine::mcp::{
    Argument, FormField, Input, InstallOption, InstallPlan, InstallRequest, KeyValueInput, Package,
    PackageTransport, RegistryEntry, RegistryPage, RemoteTransport, Repository, RuntimeCheck,
    UpdatePlan,
};
use switchboard_engine::mcp::{BundleInstall, BundlePreview, NamedItem, UserConfigField};
use switchboard_engine::mcp::{SamplingContent, SamplingMessage, SamplingRequest, SamplingRole};
use switchboard_engine::provider::presets::Preset;
use switchboard_engine::provider::prompt_tools::ToolMode;
use switchboard_engine::provider::{ModelInfo, ProviderKind, Usage};
use switchboard_engine::providers::ModelPrice;
use switchboard_engine::providers::{ConnectionTest, KeyStatus, NewProvider, ProviderView};
use switchboard_engine::runtimes::{InstalledRuntime, Runtime, RuntimesOverview};
use switchboard_engine::secrets::KeySource;
use switchboard_engine::store::{
    Assistant, AssistantDraft, Conversation, ConversationPatch, ListScope, MergeAction, MergeEntry,
    MergeReport, Message, MessageStatus, NewConversation, Page, PageRequest, Project,
    ProjectConversations, ProjectDraft, ProjectSummary, ProviderRecord, ProviderSettings, Role,
    SearchHit, Segment, ServerRecord, TokenUsage,
};
use switchboard_engine::store::{CallOutcome, ServeCall, ServeClient, ServeGrant};
use switchboard_engine::store::{FilesPage, FilesQuery, KnowledgeBase, KnowledgeFile};
use switchboard_engine::store::{ModelProbe, ToolSupport};
use switchboard_engine::store::{SyncConflict, SyncPeer};
use switchboard_engine::sync::{SyncOverview, SyncReport, SyncSettings, SyncSetup, SyncTarget};
use switchboard_engine::vocab::content::{Attachment, ContentPart, FileText, ImageRef, PdfPages};
use switchboard_engine::vocab::knowledge::{EmbedderChoice, Passage};
use switchboard_engine::vocab::mcp::{
    Prompt, PromptArgument, PromptInfo, PromptMessage, PromptRole, ProtocolEra, ResourceBody,
    ResourceContent, ResourceInfo, ResourceTemplateInfo, ResultPart, ServerInfo, ToolAnnotations,
    ToolInfo, ToolResult,
};
use switchboard_engine::vocab::mcp::{ToolUi, Visibility};
use switchboard_engine::vocab::server::{
    Approval, JwtAlgorithm, OAuthClient, OAuthGrant, ServerConfig, ServerSource, Transport,
};
use switchboard_engine::vocab::task::TaskStatus;
use switchboard_engine::{AppInfo, ErrorKind};
use ts_rs::{Config, TS};

use crate::error::IpcError;

const HEADER: &str = "// Generated from the Rust types by `cargo test bindings` \
                      (SWITCHBOARD_BLESS=1 to rewrite). Do not edit.\n";

/// The whole `bindings.ts` file.
pub fn typescript() -> String {
    let cfg = Config::new().with_large_int("number");
    let decls = [
        declaration::<AppInfo>(&cfg),
        declaration::<BackupReason>(&cfg),
        declaration::<BackupInfo>(&cfg),
        declaration::<BackupsOverview>(&cfg),
        declaration::<SyncTarget>(&cfg),
        declaration::<SyncSettings>(&cfg),
        declaration::<SyncSetup>(&cfg),
        declaration::<SyncReport>(&cfg),
        declaration::<SyncPeer>(&cfg),
        declaration::<SyncConflict>(&cfg),
        declaration::<SyncOverview>(&cfg),
        declaration::<Runtime>(&cfg),
        declaration::<InstalledRuntime>(&cfg),
        declaration::<RuntimesOverview>(&cfg),
        declaration::<ErrorKind>(&cfg),
        declaration::<IpcError>(&cfg),
        declaration::<PageRequest>(&cfg),
        declaration::<Page<()>>(&cfg),
        declaration::<Conversation>(&cfg),
        declaration::<NewConversation>(&cfg),
        declaration::<ListScope>(&cfg),
        declaration::<CompareModel>(&cfg),
        declaration::<CompareBatch>(&cfg),
        declaration::<DesktopSettings>(&cfg),
        declaration::<DesktopStatus>(&cfg),
        declaration::<QuickContext>(&cfg),
        declaration::<UpdateSettings>(&cfg),
        declaration::<AvailableUpdate>(&cfg),
        declaration::<CheckOutcome>(&cfg),
        declaration::<UpdateProgress>(&cfg),
        declaration::<Project>(&cfg),
        declaration::<ProjectDraft>(&cfg),
        declaration::<ProjectSummary>(&cfg),
        declaration::<ProjectConversations>(&cfg),
        declaration::<serde_json::Value>(&cfg),
        declaration::<ProviderKind>(&cfg),
        declaration::<Preset>(&cfg),
        declaration::<ToolMode>(&cfg),
        declaration::<ProviderSettings>(&cfg),
        declaration::<ProviderRecord>(&cfg),
        declaration::<KeySource>(&cfg),
        declaration::<KeyStatus>(&cfg),
        declaration::<ProviderView>(&cfg),
        declaration::<NewProvider>(&cfg),
        declaration::<ModelInfo>(&cfg),
        declaration::<ConnectionTest>(&cfg),
        declaration::<ToolSupport>(&cfg),
        declaration::<ModelProbe>(&cfg),
        declaration::<Transport>(&cfg),
        declaration::<Approval>(&cfg),
        declaration::<OAuthGrant>(&cfg),
        declaration::<JwtAlgorithm>(&cfg),
        declaration::<OAuthClient>(&cfg),
        declaration::<ServerConfig>(&cfg),
        declaration::<ServerRecord>(&cfg),
        declaration::<ImportReport>(&cfg),
        declaration::<ImportAction>(&cfg),
        declaration::<TrustNote>(&cfg),
        declaration::<PreviewEntry>(&cfg),
        declaration::<ImportPreview>(&cfg),
        declaration::<ServerSource>(&cfg),
        declaration::<Repository>(&cfg),
        declaration::<Input>(&cfg),
        declaration::<KeyValueInput>(&cfg),
        declaration::<Argument>(&cfg),
        declaration::<PackageTransport>(&cfg),
        declaration::<Package>(&cfg),
        declaration::<RemoteTransport>(&cfg),
        declaration::<RegistryEntry>(&cfg),
        declaration::<RegistryPage>(&cfg),
        declaration::<FormField>(&cfg),
        declaration::<InstallOption>(&cfg),
        declaration::<InstallRequest>(&cfg),
        declaration::<RuntimeCheck>(&cfg),
        declaration::<InstallPlan>(&cfg),
        declaration::<UpdatePlan>(&cfg),
        declaration::<NamedItem>(&cfg),
        declaration::<UserConfigField>(&cfg),
        declaration::<BundlePreview>(&cfg),
        declaration::<BundleInstall>(&cfg),
        declaration::<Installed>(&cfg),
        declaration::<LinkPreview>(&cfg),
        declaration::<ProtocolEra>(&cfg),
        declaration::<ServerInfo>(&cfg),
        declaration::<ServerState>(&cfg),
        declaration::<ServerStatus>(&cfg),
        declaration::<SupervisorEvent>(&cfg),
        declaration::<ServerLogs>(&cfg),
        declaration::<ToolAnnotations>(&cfg),
        declaration::<Visibility>(&cfg),
        declaration::<ToolUi>(&cfg),
        declaration::<ToolInfo>(&cfg),
        declaration::<AppCsp>(&cfg),
        declaration::<AppView>(&cfg),
        declaration::<AppCall>(&cfg),
        declaration::<AppCallOutcome>(&cfg),
        declaration::<ResourceInfo>(&cfg),
        declaration::<ResourceBody>(&cfg),
        declaration::<ResourceContent>(&cfg),
        declaration::<ResultPart>(&cfg),
        declaration::<ToolResult>(&cfg),
        declaration::<PromptArgument>(&cfg),
        declaration::<PromptInfo>(&cfg),
        declaration::<ResourceTemplateInfo>(&cfg),
        declaration::<PromptRole>(&cfg),
        declaration::<PromptMessage>(&cfg),
        declaration::<Prompt>(&cfg),
        declaration::<SamplingRole>(&cfg),
        declaration::<SamplingContent>(&cfg),
        declaration::<SamplingMessage>(&cfg),
        declaration::<SamplingRequest>(&cfg),
        declaration::<CloseReason>(&cfg),
        declaration::<InteractionEvent>(&cfg),
        declaration::<InteractionAnswer>(&cfg),
        declaration::<RootInfo>(&cfg),
        declaration::<SamplingModel>(&cfg),
        declaration::<Role>(&cfg),
        declaration::<MessageStatus>(&cfg),
        declaration::<TokenUsage>(&cfg),
        declaration::<Attachment>(&cfg),
        declaration::<ContentPart>(&cfg),
        declaration::<Message>(&cfg),
        declaration::<ConversationPatch>(&cfg),
        declaration::<ReasoningEffort>(&cfg),
        declaration::<Thinking>(&cfg),
        declaration::<ChatSettings>(&cfg),
        declaration::<Segment>(&cfg),
        declaration::<SearchHit>(&cfg),
        declaration::<Usage>(&cfg),
        declaration::<TaskStatus>(&cfg),
        declaration::<CallView>(&cfg),
        declaration::<TurnEnd>(&cfg),
        declaration::<ChatEvent>(&cfg),
        declaration::<ApprovalAnswer>(&cfg),
        declaration::<ExportFormat>(&cfg),
        declaration::<ExportScope>(&cfg),
        declaration::<ExportRequest>(&cfg),
        declaration::<ExportSummary>(&cfg),
        declaration::<ExportProgress>(&cfg),
        declaration::<ImportSource>(&cfg),
        declaration::<MergeAction>(&cfg),
        declaration::<MergeEntry>(&cfg),
        declaration::<MergeReport>(&cfg),
        declaration::<ImportResult>(&cfg),
        declaration::<ToolTokens>(&cfg),
        declaration::<ToolCost>(&cfg),
        declaration::<KnowledgeBase>(&cfg),
        declaration::<KnowledgeFile>(&cfg),
        declaration::<FilesQuery>(&cfg),
        declaration::<FilesPage>(&cfg),
        declaration::<LocalServerStatus>(&cfg),
        declaration::<ServeClient>(&cfg),
        declaration::<ServeCall>(&cfg),
        declaration::<ServeGrant>(&cfg),
        declaration::<CallOutcome>(&cfg),
        declaration::<NewServeClient>(&cfg),
        declaration::<IndexProgress>(&cfg),
        declaration::<IndexReport>(&cfg),
        declaration::<KnowledgeEvent>(&cfg),
        declaration::<Passage>(&cfg),
        declaration::<EmbedderChoice>(&cfg),
        declaration::<Assistant>(&cfg),
        declaration::<AssistantDraft>(&cfg),
        declaration::<Starter>(&cfg),
        declaration::<AssistantImport>(&cfg),
        declaration::<LocalOllama>(&cfg),
        declaration::<ImageRef>(&cfg),
        declaration::<PdfPages>(&cfg),
        declaration::<FileText>(&cfg),
        declaration::<PreparedFile>(&cfg),
        declaration::<ModelPrice>(&cfg),
    ];
    #[cfg(feature = "local")]
    let decls = {
        use switchboard_engine::local::LocalModel;
        use switchboard_engine::local::catalogue::{CatalogueModel, ExpectedSpeed};
        use switchboard_engine::local::gguf::GgufInfo;
        use switchboard_engine::providers::ModelDownloadProgress;
        let mut decls = decls.to_vec();
        decls.extend([
            declaration::<GgufInfo>(&cfg),
            declaration::<LocalModel>(&cfg),
            declaration::<ModelDownloadProgress>(&cfg),
            declaration::<ExpectedSpeed>(&cfg),
            declaration::<CatalogueModel>(&cfg),
        ]);
        decls
    };
    format!("{HEADER}\n{}", decls.join("\n"))
}

/// `export type …` for one type, with its doc comment.
fn declaration<T: TS>(cfg: &Config) -> String {
    let docs = T::docs()
        .map(|d| format!("{}\n", d.trim_end()))
        .unwrap_or_default();
    format!("{docs}export {}\n", T::decl(cfg))
}
