//! The MCP handler: `tools/list` and `tools/call` over [`crate::tools`], resources over the
//! store's handles, the two investigation prompts. One handler per MCP session; sessions of one
//! server share its [`Store`].

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

use crate::store::Store;
use crate::tools;

/// One MCP session's handler.
#[derive(Clone)]
pub struct JsprofMcp {
    store: Arc<Store>,
}

const INSTRUCTIONS: &str = "jsprof answers questions about JavaScript CPU profiles, Chrome traces and heap snapshots with Chrome DevTools' numbers. Start with `open` (a path under the server's roots) to get a handle, then ask `top`, `tree`, `events`, `heap_summary`, `heap_leaks`, … with it. The prompts `find-slow` and `find-leak` walk through the usual investigations.

Arguments shared by the tools: `handle` is `open`'s answer. On a trace, `thread` picks a thread (a tid from `open`'s summary, a timeline_id or a unique name) and `samples: true` weighs its CPU samples instead of its trace entries. `range` is `START..END` in ms from the profile's start (either side may be empty). `filters` is an object of the CLI's filter flags: `focus`, `exclude`, `drop` (lists of regular expressions over function names and URLs), `focus_stack`, `focus_stack_inverted` (lists of `;`-separated call paths as `jsprof export --folded` writes them), `hide_idle`, `collapse_packages`, `collapse_recursion` (booleans).

Lists come a page at a time: every listing tool also takes `max_items` (default 20), `max_bytes` (default 8000, the answer's whole size) and `cursor` (`page.next_cursor` of the previous answer, same other arguments); `page.total` says how many there are. The document is the structured content; the text is a short summary of it.";

impl JsprofMcp {
    pub fn new(store: Arc<Store>) -> JsprofMcp {
        JsprofMcp { store }
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }
}

fn tool_result(answer: Result<tools::Answer, crate::ToolError>) -> CallToolResult {
    match answer {
        // The document once, as structured content, and its reading as text: the page was cut
        // so that the two together fit the call's `max_bytes` (the JSON again as text would
        // double every answer).
        Ok(a) => {
            let mut r = CallToolResult::success(vec![ContentBlock::text(a.text)]);
            r.structured_content = Some(a.json);
            r
        }
        Err(e) => {
            let mut r =
                CallToolResult::error(vec![ContentBlock::text(format!("{}: {e}", e.code()))]);
            r.structured_content = Some(json!({"error": e.code(), "message": e.to_string()}));
            r
        }
    }
}

impl ServerHandler for JsprofMcp {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("jsprof", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let list = tools::catalogue(self.store.config.allow_record)
            .iter()
            .map(|spec| {
                Tool::new(
                    spec.name,
                    spec.description,
                    Arc::new(tools::listed_schema(spec, self.store.config.full_schemas)),
                )
            })
            .collect();
        Ok(ListToolsResult::with_all_items(list))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let answer = tools::call(&self.store, &request.name, args).await;
        Ok(tool_result(answer).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(crate::resources::list(
            &self.store,
        )))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Ok(crate::resources::read(&self.store, &request.uri)
            .await?
            .into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(crate::prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Ok(crate::prompts::get(&request.name, request.arguments.unwrap_or_default())?.into())
    }
}
