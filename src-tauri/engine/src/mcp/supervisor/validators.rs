//! The compiled input-schema validators of the servers' tools, kept between calls: compiling a
//! JSON Schema costs far more than checking a call's arguments against it, and a tool's schema
//! changes only when its server lists its tools again — a schema that differs from the one
//! compiled is compiled anew.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::{Map, Value};

use crate::vocab::error::ToolError;
use crate::vocab::mcp::ToolInfo;

/// One compiled schema and the schema it was compiled from.
struct Compiled {
    schema: Map<String, Value>,
    validator: Arc<jsonschema::Validator>,
}

/// Validators by server, then tool.
#[derive(Default)]
pub(super) struct Validators {
    compiled: Mutex<HashMap<String, HashMap<String, Compiled>>>,
}

impl Validators {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, HashMap<String, Compiled>>> {
        self.compiled.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The validator of `tool` of `server`: the one compiled before if the schema is the same.
    pub(super) fn of(
        &self,
        server: &str,
        tool: &ToolInfo,
    ) -> Result<Arc<jsonschema::Validator>, ToolError> {
        let kept = (self.lock().get(server))
            .and_then(|tools| tools.get(&tool.name))
            .filter(|c| c.schema == tool.input_schema)
            .map(|c| Arc::clone(&c.validator));
        if let Some(validator) = kept {
            return Ok(validator);
        }
        let schema = Value::Object(tool.input_schema.clone());
        let validator = jsonschema::validator_for(&schema).map_err(|e| ToolError::BadSchema {
            tool: tool.name.clone(),
            reason: e.to_string(),
        })?;
        let validator = Arc::new(validator);
        let compiled = Compiled {
            schema: tool.input_schema.clone(),
            validator: Arc::clone(&validator),
        };
        (self.lock().entry(server.to_owned()).or_default()).insert(tool.name.clone(), compiled);
        Ok(validator)
    }

    /// Forgets `server`'s validators (it was removed).
    pub(super) fn forget(&self, server: &str) {
        self.lock().remove(server);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(schema: Value) -> ToolInfo {
        ToolInfo {
            name: "echo".to_owned(),
            title: None,
            description: None,
            input_schema: schema.as_object().unwrap().clone(),
            output_schema: None,
            annotations: Default::default(),
            ui: None,
        }
    }

    #[test]
    fn a_validator_is_compiled_once_per_schema_and_again_when_the_schema_changes() {
        let validators = Validators::default();
        let string = tool(json!({"type": "object", "properties": {"m": {"type": "string"}}}));
        let first = validators.of("s", &string).unwrap();
        let again = validators.of("s", &string).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert!(!first.is_valid(&json!({"m": 1})));
        let number = tool(json!({"type": "object", "properties": {"m": {"type": "number"}}}));
        let changed = validators.of("s", &number).unwrap();
        assert!(!Arc::ptr_eq(&first, &changed));
        assert!(changed.is_valid(&json!({"m": 1})));
        let other = validators.of("t", &string).unwrap();
        assert!(!Arc::ptr_eq(&other, &validators.of("s", &number).unwrap()));
        validators.forget("s");
        assert!(!Arc::ptr_eq(
            &changed,
            &validators.of("s", &number).unwrap()
        ));
    }
}
