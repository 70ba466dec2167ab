//! The built-in `time` server, modelled on PyPI's `mcp-server-time`: the current time in an
//! IANA time zone, and conversion of a wall-clock time between two zones. Time-zone data is
//! bundled (jiff's `tzdb-bundle-always`), so it works where the OS has none.

use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

/// Arguments of `get_current_time`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct CurrentTimeArgs {
    /// The zone.
    #[schemars(
        description = "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use the user's local timezone if they gave none."
    )]
    pub timezone: String,
}

/// Arguments of `convert_time`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct ConvertTimeArgs {
    /// The zone `time` is in.
    #[schemars(description = "Source IANA timezone name (e.g., 'America/New_York')")]
    pub source_timezone: String,
    /// The wall-clock time.
    #[schemars(description = "Time to convert in 24-hour format (HH:MM)")]
    pub time: String,
    /// The zone to convert to.
    #[schemars(description = "Target IANA timezone name (e.g., 'Asia/Tokyo')")]
    pub target_timezone: String,
}

/// A time in a zone, as `mcp-server-time` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct ZonedTime {
    /// The IANA name.
    pub timezone: String,
    /// ISO 8601 with offset, to the second.
    pub datetime: String,
    /// e.g. `Monday`.
    pub day_of_week: String,
    /// Whether daylight saving time is in effect.
    pub is_dst: bool,
}

/// The result of `convert_time`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Conversion {
    /// The time in the source zone.
    pub source: ZonedTime,
    /// The same instant in the target zone.
    pub target: ZonedTime,
    /// The target's offset minus the source's, e.g. `+13.0h` or `+5.75h`.
    pub time_difference: String,
}

/// The `time` server.
#[derive(Clone, Debug)]
pub(crate) struct TimeServer {
    tool_router: ToolRouter<Self>,
}

impl Default for TimeServer {
    fn default() -> Self {
        Self::new()
    }
}

#[tool_router]
impl TimeServer {
    /// A new server.
    pub(crate) fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Tool `get_current_time`.
    #[tool(
        description = "Get current time in a specific timezones",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn get_current_time(
        &self,
        Parameters(args): Parameters<CurrentTimeArgs>,
    ) -> Result<String, String> {
        to_json(&current_time(&args.timezone, Timestamp::now())?)
    }

    /// Tool `convert_time`.
    #[tool(
        description = "Convert time between timezones",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn convert_time(
        &self,
        Parameters(args): Parameters<ConvertTimeArgs>,
    ) -> Result<String, String> {
        let conversion = convert(
            &args.source_timezone,
            &args.time,
            &args.target_timezone,
            Timestamp::now(),
        )?;
        to_json(&conversion)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TimeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Pretty JSON, as the Python server answers.
fn to_json<T: Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string_pretty(value).map_err(|e| e.to_string())
}

/// A zone by IANA name, or an error naming it.
fn zone(name: &str) -> Result<TimeZone, String> {
    TimeZone::get(name).map_err(|_| format!("Invalid timezone: {name}"))
}

/// `now` in zone `name`.
pub(crate) fn current_time(name: &str, now: Timestamp) -> Result<ZonedTime, String> {
    Ok(describe(name, &now.to_zoned(zone(name)?)))
}

/// Converts `time` (HH:MM, on today's date in `source` as of `now`) to `target`.
pub(crate) fn convert(
    source: &str,
    time: &str,
    target: &str,
    now: Timestamp,
) -> Result<Conversion, String> {
    let (source_tz, target_tz) = (zone(source)?, zone(target)?);
    let wall = parse_hhmm(time)?;
    let today: Date = now.to_zoned(source_tz.clone()).date();
    let at_source = today
        .to_datetime(wall)
        .to_zoned(source_tz)
        .map_err(|e| format!("Cannot place {time} in {source}: {e}"))?;
    let at_target = at_source.with_time_zone(target_tz);
    let seconds = at_target.offset().seconds() - at_source.offset().seconds();
    Ok(Conversion {
        source: describe(source, &at_source),
        target: describe(target, &at_target),
        time_difference: hours_difference(seconds),
    })
}

/// Parses `HH:MM` (24-hour).
fn parse_hhmm(time: &str) -> Result<Time, String> {
    let invalid = || "Invalid time format. Expected HH:MM [24-hour format]".to_owned();
    let (hours, minutes) = time.trim().split_once(':').ok_or_else(invalid)?;
    let hours: i8 = hours.parse().map_err(|_| invalid())?;
    let minutes: i8 = minutes.parse().map_err(|_| invalid())?;
    Time::new(hours, minutes, 0, 0).map_err(|_| invalid())
}

/// One zoned time in the reported shape.
fn describe(name: &str, zoned: &Zoned) -> ZonedTime {
    let info = zoned.time_zone().to_offset_info(zoned.timestamp());
    ZonedTime {
        timezone: name.to_owned(),
        datetime: zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        day_of_week: zoned.strftime("%A").to_string(),
        is_dst: info.dst().is_dst(),
    }
}

/// `+13.0h`, `-4.0h`, `+5.75h`, `+5.5h` (as `mcp-server-time` prints it).
fn hours_difference(seconds: i32) -> String {
    if seconds % 3600 == 0 {
        return format!("{:+.1}h", f64::from(seconds) / 3600.0);
    }
    let text = format!("{:+.2}", f64::from(seconds) / 3600.0);
    format!("{}h", text.trim_end_matches('0').trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().expect("timestamp")
    }

    #[test]
    fn the_current_time_is_reported_in_the_zone_with_dst() {
        let now = at("2024-07-01T12:00:00Z");
        let ny = current_time("America/New_York", now).expect("zone");
        assert_eq!(ny.datetime, "2024-07-01T08:00:00-04:00");
        assert_eq!(ny.day_of_week, "Monday");
        assert!(ny.is_dst);
        let tokyo = current_time("Asia/Tokyo", now).expect("zone");
        assert_eq!(tokyo.datetime, "2024-07-01T21:00:00+09:00");
        assert!(!tokyo.is_dst);
        let bad = current_time("Mars/Olympus", now);
        assert_eq!(bad, Err("Invalid timezone: Mars/Olympus".to_owned()));
    }

    #[test]
    fn times_convert_between_zones_with_the_difference() {
        let now = at("2024-01-15T10:00:00Z");
        let c = convert("Europe/London", "16:30", "Asia/Kolkata", now).expect("convert");
        assert_eq!(c.source.datetime, "2024-01-15T16:30:00+00:00");
        assert_eq!(c.target.datetime, "2024-01-15T22:00:00+05:30");
        assert_eq!(c.time_difference, "+5.5h");
        let c = convert("Asia/Tokyo", "09:00", "America/New_York", now).expect("convert");
        assert_eq!(c.target.datetime, "2024-01-14T19:00:00-05:00");
        assert_eq!(c.time_difference, "-14.0h");
        assert_eq!(hours_difference(5 * 3600 + 45 * 60), "+5.75h");
        assert!(convert("UTC", "25:00", "UTC", now).is_err());
        assert!(convert("UTC", "noon", "UTC", now).is_err());
    }
}
