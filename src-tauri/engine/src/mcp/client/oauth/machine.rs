//! The client-credentials grant (SEP-1046) for servers used by no person: the client
//! authenticates itself with its secret (`client_secret_basic` or `_post`, whichever the
//! authorization server supports) or with a `private_key_jwt` assertion (RFC 7523) signed by
//! its private key. The secret or key comes from the keychain; this module only shapes rmcp's
//! request from it.

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, ClientCredentialsConfig, JwtSigningAlgorithm,
};
use secrecy::{ExposeSecret, SecretString};

use super::OAuthError;
use crate::vocab::server::{JwtAlgorithm, OAuthClient};

/// The client-credentials request of `client` with `secret` (a client secret, or a PEM private
/// key when the client signs assertions) for the resource `url`.
pub(super) fn credentials(
    client: &OAuthClient,
    secret: SecretString,
    url: &str,
) -> Result<ClientCredentialsConfig, OAuthError> {
    let client_id = client
        .client_id
        .clone()
        .ok_or_else(|| OAuthError::Flow("the client_credentials grant needs a client id".into()))?;
    let (scopes, resource) = (client.scopes.clone(), Some(url.to_owned()));
    Ok(match client.signing_algorithm {
        None => ClientCredentialsConfig::ClientSecret {
            client_id,
            client_secret: secret.expose_secret().to_owned(),
            scopes,
            resource,
        },
        Some(algorithm) => {
            let pem = secret.expose_secret().trim();
            if !pem.starts_with("-----BEGIN") {
                return Err(OAuthError::BadKey(
                    "the stored key is not a PEM private key (-----BEGIN …)".into(),
                ));
            }
            ClientCredentialsConfig::PrivateKeyJwt {
                client_id,
                signing_key: pem.as_bytes().to_vec(),
                signing_algorithm: rmcp_algorithm(algorithm),
                token_endpoint_audience: None,
                scopes,
                resource,
            }
        }
    })
}

/// Checks the request against the authorization server's metadata and exchanges it for tokens
/// (saved to the manager's store). rmcp's exchange future is not `Send` (its assertion path
/// keeps a form serializer across an await), so it runs to completion on a blocking thread of
/// the same runtime.
pub(super) async fn exchange(
    mut manager: AuthorizationManager,
    config: ClientCredentialsConfig,
) -> Result<AuthorizationManager, OAuthError> {
    let handle = tokio::runtime::Handle::current();
    let joined = tokio::task::spawn_blocking(move || {
        handle.block_on(async move {
            manager.validate_client_credentials_metadata(&config)?;
            manager.configure_client_credentials(&config)?;
            manager.exchange_client_credentials(&config).await?;
            Ok::<_, AuthError>(manager)
        })
    })
    .await;
    let exchanged = joined.map_err(|e| OAuthError::Flow(e.to_string()))?;
    exchanged.map_err(OAuthError::from)
}

fn rmcp_algorithm(algorithm: JwtAlgorithm) -> JwtSigningAlgorithm {
    match algorithm {
        JwtAlgorithm::RS256 => JwtSigningAlgorithm::RS256,
        JwtAlgorithm::RS384 => JwtSigningAlgorithm::RS384,
        JwtAlgorithm::RS512 => JwtSigningAlgorithm::RS512,
        JwtAlgorithm::ES256 => JwtSigningAlgorithm::ES256,
        JwtAlgorithm::ES384 => JwtSigningAlgorithm::ES384,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::server::OAuthGrant;

    fn client(signing_algorithm: Option<JwtAlgorithm>) -> OAuthClient {
        OAuthClient {
            client_id: Some("svc".into()),
            grant: OAuthGrant::ClientCredentials,
            signing_algorithm,
            ..OAuthClient::default()
        }
    }

    #[test]
    fn a_secret_becomes_a_client_secret_request_for_the_server_url() {
        let config = credentials(&client(None), "s3cret".into(), "https://x.test/mcp").unwrap();
        assert!(matches!(
            config,
            ClientCredentialsConfig::ClientSecret { ref client_id, ref client_secret, ref resource, .. }
                if client_id == "svc" && client_secret == "s3cret"
                    && resource.as_deref() == Some("https://x.test/mcp")
        ));
    }

    #[test]
    fn a_signing_client_needs_a_pem_key() {
        let error = credentials(
            &client(Some(JwtAlgorithm::ES256)),
            "not a key".into(),
            "https://x.test/mcp",
        )
        .unwrap_err();
        assert!(matches!(error, OAuthError::BadKey(_)), "{error}");
        let pem = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
        let config = credentials(
            &client(Some(JwtAlgorithm::ES256)),
            pem.into(),
            "https://x.test/mcp",
        )
        .unwrap();
        assert!(matches!(
            config,
            ClientCredentialsConfig::PrivateKeyJwt { .. }
        ));
    }
}
