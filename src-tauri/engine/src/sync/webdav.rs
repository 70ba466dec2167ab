//! A WebDAV server as a sync remote (Nextcloud, ownCloud, Synology, Apache/nginx `dav`,
//! `rclone serve webdav`, `wsgidav`): GET, PUT, MKCOL and a depth-1 PROPFIND, with basic
//! authentication, a time limit on every request and each failure said in words.

use std::time::Duration;

use async_trait::async_trait;
use quick_xml::events::Event;
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};

use super::error::SyncError;
use super::remote::{Remote, Traffic};

/// A WebDAV collection that holds the sync folder.
#[derive(Debug)]
pub struct WebDavRemote {
    base: url::Url,
    user: Option<String>,
    password: Option<SecretString>,
    client: reqwest::Client,
    timeout: Duration,
    traffic: Traffic,
}

impl WebDavRemote {
    /// The collection at `url` (created on first use), logged in as `user` when given,
    /// every request allowed `timeout`.
    pub fn new(
        url: &str,
        user: Option<String>,
        password: Option<SecretString>,
        timeout: Duration,
    ) -> Result<Self, SyncError> {
        let mut base = url::Url::parse(url.trim())
            .map_err(|e| SyncError::Invalid(format!("{url:?} is not a URL: {e}")))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(SyncError::Invalid(format!("{url:?} is not an http(s) URL")));
        }
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let client = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .timeout(timeout)
            .build()
            .map_err(|e| SyncError::Invalid(e.to_string()))?;
        Ok(Self {
            base,
            user,
            password,
            client,
            timeout,
            traffic: Traffic::default(),
        })
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        depth: bool,
    ) -> Result<(StatusCode, Vec<u8>), SyncError> {
        let url = self
            .base
            .join(path)
            .map_err(|e| SyncError::Invalid(format!("bad path {path:?}: {e}")))?;
        let mut request = self.client.request(method, url);
        if let Some(user) = &self.user {
            let password = self.password.as_ref().map(|p| p.expose_secret().to_owned());
            request = request.basic_auth(user, password);
        }
        if depth {
            request = request
                .header("Depth", "1")
                .header("Content-Type", "application/xml");
        }
        let up = body.as_ref().map_or(0, Vec::len);
        if let Some(body) = body {
            request = request.body(body);
        }
        let response = request.send().await.map_err(|e| self.failed(e))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| self.failed(e))?;
        self.traffic.count(up, bytes.len());
        Ok((status, bytes.to_vec()))
    }

    fn failed(&self, e: reqwest::Error) -> SyncError {
        let url = self.base.to_string();
        if e.is_timeout() {
            return SyncError::Timeout {
                url,
                secs: self.timeout.as_secs(),
            };
        }
        let mut reason = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(inner) = source {
            reason = inner.to_string();
            source = inner.source();
        }
        SyncError::Unreachable { url, reason }
    }
}

/// An error status in words.
fn status_error(path: &str, status: StatusCode) -> SyncError {
    let meaning = match status.as_u16() {
        401 => "the server refused the user name or password",
        403 => "the server does not allow this; check the folder's permissions",
        404 | 409 => "the folder is missing on the server",
        405 => "the server does not allow this here; is the URL a WebDAV folder?",
        423 => "the file is locked by another program",
        507 => "the server is out of space (507 Insufficient Storage); nothing was lost",
        500..=599 => "the server failed; try again later",
        _ => "an answer Switchboard does not expect",
    };
    SyncError::Status {
        path: path.to_owned(),
        status: status.as_u16(),
        meaning,
    }
}

#[async_trait]
impl Remote for WebDavRemote {
    async fn get(&self, path: &str) -> Result<Option<Vec<u8>>, SyncError> {
        let (status, body) = self.send(Method::GET, path, None, false).await?;
        match status {
            s if s.is_success() => Ok(Some(body)),
            StatusCode::NOT_FOUND => Ok(None),
            s => Err(status_error(path, s)),
        }
    }

    async fn put(&self, path: &str, body: Vec<u8>) -> Result<(), SyncError> {
        let (status, _) = self.send(Method::PUT, path, Some(body), false).await?;
        if status.is_success() {
            Ok(())
        } else {
            Err(status_error(path, status))
        }
    }

    async fn mkdir(&self, path: &str) -> Result<(), SyncError> {
        let method = Method::from_bytes(b"MKCOL").map_err(|e| SyncError::Invalid(e.to_string()))?;
        let (status, _) = self.send(method, path, None, false).await?;
        // 405: it exists already.
        if status.is_success() || status == StatusCode::METHOD_NOT_ALLOWED {
            Ok(())
        } else {
            Err(status_error(path, status))
        }
    }

    async fn folders(&self, path: &str) -> Result<Vec<String>, SyncError> {
        let method =
            Method::from_bytes(b"PROPFIND").map_err(|e| SyncError::Invalid(e.to_string()))?;
        let query = br#"<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/></d:prop></d:propfind>"#;
        let (status, body) = self.send(method, path, Some(query.to_vec()), true).await?;
        match status.as_u16() {
            207 => parse_folders(path, &body),
            404 => Ok(Vec::new()),
            _ => Err(status_error(path, status)),
        }
    }

    fn traffic(&self) -> &Traffic {
        &self.traffic
    }
}

/// The folder names a PROPFIND multistatus lists under `path` (not `path` itself).
fn parse_folders(path: &str, body: &[u8]) -> Result<Vec<String>, SyncError> {
    let mut reader = quick_xml::Reader::from_reader(body);
    let (mut href, mut collection, mut in_href) = (String::new(), false, false);
    let mut names = Vec::new();
    let bad = |e: String| SyncError::Foreign {
        path: path.to_owned(),
        reason: format!("the server's folder listing is not WebDAV XML ({e})"),
    };
    let mut buf = Vec::new();
    loop {
        match reader
            .read_event_into(&mut buf)
            .map_err(|e| bad(e.to_string()))?
        {
            Event::Start(e) if e.local_name().as_ref() == "response" => {
                href.clear();
                collection = false;
            }
            Event::Start(e) if e.local_name().as_ref() == "href" => in_href = true,
            Event::End(e) if e.local_name().as_ref() == "href" => in_href = false,
            Event::Text(t) if in_href => {
                href.push_str(&t.xml10_content());
            }
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == "collection" => {
                collection = true;
            }
            Event::End(e) if e.local_name().as_ref() == "response" => {
                let trimmed = href.trim().trim_end_matches('/');
                let last = trimmed.rsplit('/').next().unwrap_or_default();
                let name = percent_decode(last);
                let own = path
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or_default();
                if collection && !name.is_empty() && name != own {
                    names.push(name);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    names.sort();
    Ok(names)
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_propfind_listing_gives_the_folders_below_not_the_folder_itself() {
        let body = br#"<?xml version="1.0" encoding="utf-8"?>
<D:multistatus xmlns:D="DAV:">
<D:response><D:href>/sync/devices/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>
<D:response><D:href>/sync/devices/abc/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>
<D:response><D:href>/sync/devices/d%C3%A9f/</D:href><D:propstat><D:prop><D:resourcetype><D:collection></D:collection></D:resourcetype></D:prop></D:propstat></D:response>
<D:response><D:href>/sync/devices/file.txt</D:href><D:propstat><D:prop><D:resourcetype/></D:prop></D:propstat></D:response>
</D:multistatus>"#;
        assert_eq!(parse_folders("devices/", body).unwrap(), ["abc", "déf"]);
        assert!(parse_folders("devices/", b"<a><b></a>").is_err());
    }
}
