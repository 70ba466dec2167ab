//! A bundle's zip sized up before the zip library reads it: the end-of-central-directory
//! records (EOCD) in the file's last 64 KiB are read here, and a zip whose EOCD declares more
//! entries than allowed or a larger central directory than [`MAX_CENTRAL_DIRECTORY_BYTES`],
//! or that needs ZIP64 (a bundle never does), is refused before the library parses (and
//! allocates for) its central directory. Every candidate record the library might use is
//! checked, so a harmless one placed last cannot hide a hostile one before it.

use std::io::{Read, Seek, SeekFrom};

/// The largest central directory read (10,000 entries with 1 KiB names fit well within it).
pub(crate) const MAX_CENTRAL_DIRECTORY_BYTES: u64 = 16 * 1024 * 1024;

/// The EOCD record's signature (`PK\x05\x06`).
const EOCD_SIGNATURE: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
/// The EOCD record's size without its comment.
const EOCD_SIZE: usize = 22;
/// How far from the end an EOCD can be: its size, a comment of at most 64 KiB, and a
/// signature's worth of slack (the window the zip library searches).
const SEARCH_WINDOW: u64 = EOCD_SIZE as u64 + 4 + (1 << 16);

/// What the EOCD records at the end of a zip declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Declared {
    /// The most entries any candidate record declares.
    pub entries: u64,
    /// The largest central directory any candidate record declares, in bytes.
    pub directory_bytes: u64,
}

/// Reads the EOCD records in the last 64 KiB of `reader` (`len` bytes long) and refuses, with
/// the reason, a zip that declares more than `max_entries` entries, a central directory
/// larger than [`MAX_CENTRAL_DIRECTORY_BYTES`], or ZIP64 fields; none found: not a zip.
pub(crate) fn check_end<R: Read + Seek>(
    reader: &mut R,
    len: u64,
    max_entries: usize,
) -> Result<Declared, String> {
    let start = len.saturating_sub(SEARCH_WINDOW);
    let mut tail = Vec::new();
    reader
        .seek(SeekFrom::Start(start))
        .and_then(|_| reader.take(SEARCH_WINDOW).read_to_end(&mut tail))
        .map_err(|e| format!("it cannot be read: {e}"))?;
    let mut declared: Option<Declared> = None;
    let candidates =
        (0..tail.len().saturating_sub(EOCD_SIZE - 1)).filter(|&i| tail[i..i + 4] == EOCD_SIGNATURE);
    for i in candidates {
        let record = &tail[i..i + EOCD_SIZE];
        let u16_at = |o: usize| u16::from_le_bytes([record[o], record[o + 1]]);
        let u32_at =
            |o: usize| u32::from_le_bytes([record[o], record[o + 1], record[o + 2], record[o + 3]]);
        let (on_disk, entries) = (u16_at(8), u16_at(10));
        let (size, offset) = (u32_at(12), u32_at(16));
        if entries == u16::MAX || on_disk == u16::MAX || size == u32::MAX || offset == u32::MAX {
            let at = start + i as u64;
            if let Some(n) = zip64_entries(reader, at).filter(|n| *n > max_entries as u64) {
                return Err(format!("it has {n} entries, more than {max_entries}"));
            }
            return Err(format!(
                "it is a ZIP64 archive, which a bundle never needs (at most {max_entries} entries)"
            ));
        }
        let entries = u64::from(entries.max(on_disk));
        if entries > max_entries as u64 {
            return Err(format!("it has {entries} entries, more than {max_entries}"));
        }
        if u64::from(size) > MAX_CENTRAL_DIRECTORY_BYTES {
            return Err(format!(
                "its central directory is {size} bytes, more than {MAX_CENTRAL_DIRECTORY_BYTES}"
            ));
        }
        let d = declared.get_or_insert(Declared {
            entries: 0,
            directory_bytes: 0,
        });
        d.entries = d.entries.max(entries);
        d.directory_bytes = d.directory_bytes.max(u64::from(size));
    }
    declared.ok_or_else(|| "it is not a zip file (no end of central directory)".to_owned())
}

/// The entry count the ZIP64 end record declares, for the EOCD at `eocd_at` (read through
/// the ZIP64 locator just before it); none when there is none to read.
fn zip64_entries<R: Read + Seek>(reader: &mut R, eocd_at: u64) -> Option<u64> {
    let mut locator = [0u8; 20];
    reader
        .seek(SeekFrom::Start(eocd_at.checked_sub(20)?))
        .ok()?;
    reader.read_exact(&mut locator).ok()?;
    if locator[..4] != [0x50, 0x4b, 0x06, 0x07] {
        return None;
    }
    let record_at = u64::from_le_bytes(locator[8..16].try_into().ok()?);
    let mut record = [0u8; 56];
    reader.seek(SeekFrom::Start(record_at)).ok()?;
    reader.read_exact(&mut record).ok()?;
    if record[..4] != [0x50, 0x4b, 0x06, 0x06] {
        return None;
    }
    Some(u64::from_le_bytes(record[32..40].try_into().ok()?))
}
