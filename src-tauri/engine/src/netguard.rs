//! Which network addresses count as public: the one classifier behind the fetch server's SSRF
//! guard, the OAuth endpoints a server chooses, and the origins an MCP App may declare in its
//! CSP. Anything that is not a public unicast address (loopback, private, link-local, CGNAT,
//! benchmarking, reserved, documentation, multicast, and the IPv6 forms that embed such an IPv4
//! address: IPv4-mapped, IPv4-compatible, NAT64 and 6to4) is local, and local is refused unless
//! the user allowed private addresses for that server.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether `ip` is a public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

/// Whether an IPv4 address is public.
fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let cgnat = a == 100 && (64..128).contains(&b);
    let benchmarking = a == 198 && (b == 18 || b == 19);
    let reserved = a >= 240;
    let protocol_assignments = a == 192 && b == 0 && c == 0;
    let documentation = matches!((a, b, c), (192, 0, 2) | (198, 51, 100) | (203, 0, 113));
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || cgnat
        || benchmarking
        || reserved
        || protocol_assignments
        || documentation
        || a == 0)
}

/// Whether an IPv6 address (one that embeds no IPv4 address) is public.
fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let unique_local = s[0] & 0xfe00 == 0xfc00;
    let link_local = s[0] & 0xffc0 == 0xfe80;
    let site_local = s[0] & 0xffc0 == 0xfec0;
    let local_nat64 = s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1;
    let documentation = s[0] == 0x2001 && s[1] == 0x0db8;
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || unique_local
        || link_local
        || site_local
        || local_nat64
        || documentation)
}

/// The IPv4 address an IPv6 address carries: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002:AABB:CCDD::/48`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let o = ip.octets();
    let low = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    match s {
        [0, 0, 0, 0, 0, 0xffff, ..] | [0x64, 0xff9b, 0, 0, 0, 0, ..] => Some(low),
        // `::` and `::1` are themselves (unspecified, loopback), not IPv4-compatible forms.
        [0, 0, 0, 0, 0, 0, ..] if !ip.is_loopback() && !ip.is_unspecified() => Some(low),
        [0x2002, ..] => Some(Ipv4Addr::new(o[2], o[3], o[4], o[5])),
        _ => None,
    }
}

/// A host as compared: lower case, without a trailing dot, IPv6 brackets removed.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(inner) => inner.to_owned(),
        None => host,
    }
}

/// Whether a host (a name or an IP literal, in any case, with or without a trailing dot)
/// names this machine or a local network: `localhost` and `*.localhost`, or a non-public IP,
/// including the forms a browser reads as one (`0x7f.1`, `2130706433`). Other names are not
/// resolved here (see [`PublicOnly`] for what connects).
pub fn is_local_host(host: &str) -> bool {
    let host = normalize_host(host);
    if let Ok(ip) = host.parse::<IpAddr>() {
        return !is_public(ip);
    }
    match url::Host::parse(&host) {
        Ok(url::Host::Ipv4(v4)) => !is_public(IpAddr::V4(v4)),
        Ok(url::Host::Ipv6(v6)) => !is_public(IpAddr::V6(v6)),
        Ok(url::Host::Domain(name)) => name == "localhost" || name.ends_with(".localhost"),
        Err(_) => host == "localhost" || host.ends_with(".localhost"),
    }
}

/// Whether a URL's host is local (see [`is_local_host`]); a URL without a host is not.
pub fn url_is_local(url: &url::Url) -> bool {
    url.host_str().is_some_and(is_local_host)
}

/// A DNS resolver for reqwest that fails when any address of a name is not public, so a
/// request (and every redirect of it) connects to public addresses only, whatever the name.
/// The refusal names the host and the address ([`PublicOnly::saying`] words it otherwise).
#[derive(Debug, Clone, Copy)]
pub struct PublicOnly {
    refusal: fn(&str, IpAddr) -> String,
}

impl Default for PublicOnly {
    fn default() -> Self {
        Self::saying(|host, ip| {
            format!("refusing to connect to {host}: {ip} is not a public address")
        })
    }
}

impl PublicOnly {
    /// A resolver whose refusal of `host` at `ip` reads `refusal(host, ip)`.
    pub fn saying(refusal: fn(&str, IpAddr) -> String) -> Self {
        Self { refusal }
    }
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let refusal = self.refusal;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(bad) = addrs.iter().find(|a| !is_public(a.ip())) {
                let message = refusal(&host, bad.ip());
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

    fn public(ip: &str) -> bool {
        is_public(ip.parse().unwrap_or_else(|_| panic!("{ip} is not an IP")))
    }

    #[test]
    fn the_well_known_local_ranges_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.0.0.1",
            "192.168.1.1",
            "172.16.0.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::",
            "::1",
            "fe80::1",
            "fd00::1",
            "ff02::1",
        ] {
            assert!(!public(ip), "{ip} counted as public");
        }
    }

    #[test]
    fn public_addresses_of_both_families_stay_public() {
        for ip in [
            "1.1.1.1",
            "93.184.216.34",
            "2606:4700::1111",
            "::ffff:1.1.1.1",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
        ] {
            assert!(public(ip), "{ip} counted as local");
        }
    }

    #[test]
    fn names_are_compared_without_case_or_a_trailing_dot() {
        for host in [
            "LOCALHOST",
            "localhost.",
            "ipc.localhost.",
            "IPC.LOCALHOST",
            "[::1]",
            "127.0.0.1",
            "0x7f.1",
            "2130706433",
        ] {
            assert!(is_local_host(host), "{host}");
        }
        assert!(!is_local_host("example.com."));
        assert!(!is_local_host("localhost.example.com"));
    }
}
