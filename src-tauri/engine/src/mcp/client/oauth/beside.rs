//! The resolver of a local server's OAuth requests (the user pointed us at a server on this
//! machine or network, or allowed private addresses for it): a name may resolve to a public
//! address, to a loopback one only beside a loopback server, to a private one (RFC 1918,
//! CGNAT, IPv6 unique-local) only beside a private server or when the user allowed private
//! addresses; link-local (cloud metadata), unspecified, multicast and reserved addresses never.
//! rmcp's own managers apply the same rule, but their clients follow redirects to any origin
//! and honour `HTTPS_PROXY`, so ours replace them.

use std::net::{IpAddr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::netguard;

/// Which non-public addresses a local server's OAuth requests may reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Beside {
    /// Loopback addresses (the server itself is on loopback).
    pub loopback: bool,
    /// Private addresses (the server is on a private network, or the user allowed them).
    pub private: bool,
}

impl Beside {
    /// What a server at `url` may reach; `allow_private` is the user's per-server setting.
    pub(crate) fn server(url: &url::Url, allow_private: bool) -> Self {
        let host = url.host();
        let ip = match &host {
            Some(url::Host::Ipv4(v4)) => Some(IpAddr::V4(*v4)),
            Some(url::Host::Ipv6(v6)) => Some(IpAddr::V6(*v6)),
            _ => None,
        };
        let named_local = matches!(&host, Some(url::Host::Domain(d))
            if netguard::is_local_host(d));
        Self {
            loopback: named_local || ip.is_some_and(is_loopback),
            private: allow_private || ip.is_some_and(is_private),
        }
    }

    /// Whether a connection to `ip` is allowed.
    pub(crate) fn allows(self, ip: IpAddr) -> bool {
        netguard::is_public(ip)
            || (self.loopback && is_loopback(ip))
            || (self.private && is_private(ip))
    }
}

fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

fn is_private(ip: IpAddr) -> bool {
    match ip.to_canonical() {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_private() || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => v6.segments()[0] & 0xfe00 == 0xfc00,
    }
}

impl Resolve for Beside {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let policy = *self;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(bad) = addrs.iter().find(|a| !policy.allows(a.ip())) {
                let message = format!(
                    "refusing the OAuth request to {host}: {} is not an address this server's \
                     authorization may use",
                    bad.ip()
                );
                return Err(message.into());
            }
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beside(url: &str, allow_private: bool) -> Beside {
        Beside::server(&url::Url::parse(url).unwrap(), allow_private)
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_loopback_server_reaches_loopback_but_never_link_local() {
        let policy = beside("http://127.0.0.1:8080/mcp", false);
        assert!(policy.allows(ip("127.0.0.1")));
        assert!(policy.allows(ip("::ffff:127.0.0.1")));
        assert!(!policy.allows(ip("10.0.0.1")));
        assert!(!policy.allows(ip("169.254.169.254")));
        assert!(policy.allows(ip("93.184.216.34")));
    }

    #[test]
    fn private_addresses_need_a_private_server_or_the_users_permission() {
        assert!(beside("http://192.168.1.5/mcp", false).allows(ip("10.0.0.9")));
        let public = beside("https://mcp.example.com/mcp", true);
        assert!(public.allows(ip("10.0.0.9")));
        assert!(!public.allows(ip("127.0.0.1")));
        assert!(!public.allows(ip("169.254.169.254")));
    }
}
