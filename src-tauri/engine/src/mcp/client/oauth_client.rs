//! Who we are to a remote server's authorization server: the `"oauth"` object of its config
//! entry. Without one we register dynamically (the default); with one we may use a client
//! registered beforehand (`clientId`), a Client ID Metadata Document (`clientMetadataUrl`,
//! SEP-991: an HTTPS URL whose document describes us, used when the authorization server
//! advertises support for it), or the machine-to-machine client-credentials grant
//! (`"grant": "client_credentials"`, SEP-1046) with a client secret or, with
//! `signingAlgorithm`, a `private_key_jwt` assertion signed by the client's private key.
//!
//! Secrets never live in the config: the client secret or the private key (PEM) is kept in the
//! OS keychain under [`secret_account`].

use serde_json::Value;

use crate::vocab::server::{OAuthClient, OAuthGrant};

/// The keychain account of `server`'s client secret or private key.
pub fn secret_account(server: &str) -> String {
    format!("mcp-oauth-client:{server}")
}

/// One problem with the `oauth` object: the field (`oauth.clientId`…) and what is wrong.
pub(crate) type Problem = (String, String);

/// Reads an entry's `"oauth"` object, collecting every problem.
pub(crate) fn parse(value: &Value) -> Result<OAuthClient, Vec<Problem>> {
    let mut problems = Vec::new();
    let Some(obj) = value.as_object() else {
        return Err(vec![("oauth".into(), "must be an object".into())]);
    };
    let mut fail = |field: &str, what: &str| problems.push((format!("oauth.{field}"), what.into()));
    let text = |field: &str, fail: &mut dyn FnMut(&str, &str)| match obj.get(field) {
        None => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(_) => {
            fail(field, "must be a non-empty string");
            None
        }
    };
    let client_id = text("clientId", &mut fail);
    let client_metadata_url = text("clientMetadataUrl", &mut fail);
    if let Some(url) = &client_metadata_url
        && !is_https_url_with_path(url)
    {
        fail(
            "clientMetadataUrl",
            "must be an https URL with a path (where the client metadata document is served)",
        );
    }
    let grant = match obj.get("grant") {
        None => OAuthGrant::default(),
        Some(v) => serde_json::from_value(v.clone()).unwrap_or_else(|_| {
            fail(
                "grant",
                "must be \"authorization_code\" or \"client_credentials\"",
            );
            OAuthGrant::default()
        }),
    };
    let scopes = match obj.get("scopes") {
        None => Vec::new(),
        Some(v) => serde_json::from_value::<Vec<String>>(v.clone()).unwrap_or_else(|_| {
            fail("scopes", "must be an array of strings");
            Vec::new()
        }),
    };
    let signing_algorithm = match obj.get("signingAlgorithm") {
        None => None,
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .unwrap_or_else(|_| {
                fail(
                    "signingAlgorithm",
                    "must be one of \"RS256\", \"RS384\", \"RS512\", \"ES256\", \"ES384\"",
                );
                None
            }),
    };
    if grant == OAuthGrant::ClientCredentials && client_id.is_none() {
        fail("clientId", "is required with the client_credentials grant");
    }
    if grant != OAuthGrant::ClientCredentials && signing_algorithm.is_some() {
        fail(
            "signingAlgorithm",
            "applies only to the client_credentials grant",
        );
    }
    for key in obj.keys() {
        if !FIELDS.contains(&key.as_str()) {
            let what = match key.as_str() {
                "clientSecret" | "privateKey" | "privateKeyPem" => {
                    "is a secret and is not read from the config: enter it in the server's \
                     settings (it is kept in the OS keychain)"
                }
                _ => {
                    "is not a known field (clientId, clientMetadataUrl, grant, scopes, signingAlgorithm)"
                }
            };
            fail(key, what);
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(OAuthClient {
        client_id,
        client_metadata_url,
        grant,
        scopes,
        signing_algorithm,
    })
}

/// The fields of the `oauth` object.
const FIELDS: [&str; 5] = [
    "clientId",
    "clientMetadataUrl",
    "grant",
    "scopes",
    "signingAlgorithm",
];

fn is_https_url_with_path(url: &str) -> bool {
    reqwest::Url::parse(url)
        .is_ok_and(|u| u.scheme() == "https" && u.host().is_some() && u.path() != "/")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::vocab::server::JwtAlgorithm;

    #[test]
    fn an_empty_object_means_dynamic_registration() {
        let client = parse(&json!({})).unwrap();
        assert!(client.is_default());
    }

    #[test]
    fn client_credentials_with_a_signing_algorithm_are_read() {
        let client = parse(&json!({
            "clientId": "svc", "grant": "client_credentials",
            "scopes": ["read", "write"], "signingAlgorithm": "ES256"
        }))
        .unwrap();
        assert_eq!(client.client_id.as_deref(), Some("svc"));
        assert_eq!(client.grant, OAuthGrant::ClientCredentials);
        assert_eq!(client.scopes, ["read", "write"]);
        assert_eq!(client.signing_algorithm, Some(JwtAlgorithm::ES256));
    }

    #[test]
    fn every_problem_is_named_by_its_field() {
        let problems = parse(&json!({
            "clientMetadataUrl": "http://example.com/meta.json",
            "grant": "implicit",
            "scopes": "read",
            "clientSecret": "s3cret",
        }))
        .unwrap_err();
        let fields: Vec<&str> = problems.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "oauth.clientMetadataUrl",
                "oauth.grant",
                "oauth.scopes",
                "oauth.clientSecret"
            ]
        );
        assert!(problems[3].1.contains("keychain"), "{problems:?}");
    }

    #[test]
    fn client_credentials_need_a_client_id_and_jwt_needs_client_credentials() {
        let problems = parse(&json!({"grant": "client_credentials"})).unwrap_err();
        assert_eq!(problems[0].0, "oauth.clientId");
        let problems = parse(&json!({"signingAlgorithm": "RS256"})).unwrap_err();
        assert_eq!(problems[0].0, "oauth.signingAlgorithm");
    }

    #[test]
    fn the_settings_round_trip_through_serde_without_defaults() {
        let client = OAuthClient {
            client_metadata_url: Some("https://app.example/client.json".into()),
            ..OAuthClient::default()
        };
        let json = serde_json::to_value(&client).unwrap();
        assert_eq!(
            json,
            json!({"clientMetadataUrl": "https://app.example/client.json"})
        );
        assert_eq!(parse(&json).unwrap(), client);
    }
}
