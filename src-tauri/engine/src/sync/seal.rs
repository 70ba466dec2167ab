//! What a sync file is on the server: compressed (gzip) and, when the sync folder is
//! encrypted, sealed with XChaCha20-Poly1305 under a key derived from the passphrase with
//! Argon2id (the salt and parameters in `format.json`). A file's path is its associated
//! data, so a file moved or swapped on the server does not open.

use std::io::{Read as _, Write as _};

use argon2::Argon2;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::error::SyncError;

/// The first bytes of every sync file.
const MAGIC: &[u8; 4] = b"SBSY";
/// The file layout this build writes and reads.
const LAYOUT: u8 = 1;
/// Flag: the payload is sealed.
const SEALED: u8 = 1;
/// What the check in `format.json` opens to.
const CHECK: &[u8] = b"switchboard sync";
/// A file larger than this is refused before it is decompressed further.
const MAX_PLAIN: u64 = 512 * 1024 * 1024;

/// How the key is derived from the passphrase (kept in `format.json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Kdf {
    /// Always `argon2id`.
    pub kdf: String,
    /// The salt, base64.
    pub salt: String,
    /// Memory in KiB.
    pub memory_kib: u32,
    /// Passes.
    pub iterations: u32,
    /// Lanes.
    pub parallelism: u32,
    /// [`CHECK`] sealed under the key, base64: a wrong passphrase is told at once.
    pub check: String,
}

/// Seals and opens sync files.
#[derive(Clone)]
pub struct Seal {
    cipher: Option<XChaCha20Poly1305>,
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seal")
            .field("encrypted", &self.cipher.is_some())
            .finish()
    }
}

impl Seal {
    /// Compression only.
    pub fn plain() -> Self {
        Self { cipher: None }
    }

    /// A new key from `passphrase` with a fresh salt, and the parameters to keep.
    pub fn create(passphrase: &SecretString) -> Result<(Self, Kdf), SyncError> {
        let salt: [u8; 16] = std::array::from_fn(|_| fastrand::u8(..));
        let mut kdf = Kdf {
            kdf: "argon2id".into(),
            salt: B64.encode(salt),
            memory_kib: argon2::Params::DEFAULT_M_COST,
            iterations: argon2::Params::DEFAULT_T_COST,
            parallelism: argon2::Params::DEFAULT_P_COST,
            check: String::new(),
        };
        let seal = Self::derive(passphrase, &kdf)?;
        kdf.check = B64.encode(seal.seal("format.json", CHECK)?);
        Ok((seal, kdf))
    }

    /// The key `passphrase` gives under `kdf`, refused when it does not open the check.
    pub fn open_with(passphrase: &SecretString, kdf: &Kdf) -> Result<Self, SyncError> {
        let seal = Self::derive(passphrase, kdf)?;
        let check = B64
            .decode(&kdf.check)
            .map_err(|_| SyncError::foreign("format.json", "bad check"))?;
        match seal.open("format.json", &check) {
            Ok(plain) if plain == CHECK => Ok(seal),
            _ => Err(SyncError::WrongPassphrase),
        }
    }

    fn derive(passphrase: &SecretString, kdf: &Kdf) -> Result<Self, SyncError> {
        if kdf.kdf != "argon2id" {
            return Err(SyncError::foreign("format.json", "unknown key derivation"));
        }
        let salt = B64
            .decode(&kdf.salt)
            .map_err(|_| SyncError::foreign("format.json", "bad salt"))?;
        let params = argon2::Params::new(kdf.memory_kib, kdf.iterations, kdf.parallelism, Some(32))
            .map_err(|e| SyncError::foreign("format.json", e))?;
        let argon = Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
        let mut key = [0u8; 32];
        argon
            .hash_password_into(passphrase.expose_secret().as_bytes(), &salt, &mut key)
            .map_err(|e| SyncError::foreign("format.json", e))?;
        Ok(Self {
            cipher: Some(XChaCha20Poly1305::new(&Key::from(key))),
        })
    }

    /// Whether files are sealed.
    pub fn encrypted(&self) -> bool {
        self.cipher.is_some()
    }

    /// The file at `path` holding `plain`.
    pub fn seal(&self, path: &str, plain: &[u8]) -> Result<Vec<u8>, SyncError> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(plain)
            .and_then(|()| gz.try_finish())
            .map_err(|e| SyncError::foreign(path, e))?;
        let packed = gz.finish().map_err(|e| SyncError::foreign(path, e))?;
        let mut out = MAGIC.to_vec();
        out.push(LAYOUT);
        match &self.cipher {
            None => {
                out.push(0);
                out.extend(packed);
            }
            Some(cipher) => {
                out.push(SEALED);
                let nonce: [u8; 24] = std::array::from_fn(|_| fastrand::u8(..));
                let payload = Payload {
                    msg: &packed,
                    aad: path.as_bytes(),
                };
                let sealed = cipher
                    .encrypt(&XNonce::from(nonce), payload)
                    .map_err(|_| SyncError::foreign(path, "cannot encrypt"))?;
                out.extend(nonce);
                out.extend(sealed);
            }
        }
        Ok(out)
    }

    /// What the file at `path` holds.
    pub fn open(&self, path: &str, bytes: &[u8]) -> Result<Vec<u8>, SyncError> {
        if bytes.len() < 6 || &bytes[..4] != MAGIC {
            return Err(SyncError::foreign(path, "it does not start as one"));
        }
        if bytes[4] != LAYOUT {
            return Err(SyncError::NewerFormat {
                found: u64::from(bytes[4]),
                supported: u64::from(LAYOUT),
            });
        }
        let packed = match (bytes[5], &self.cipher) {
            (0, None) => bytes[6..].to_vec(),
            (SEALED, Some(cipher)) if bytes.len() >= 6 + 24 => {
                let (nonce, sealed) = bytes[6..].split_at(24);
                let mut whole = [0u8; 24];
                whole.copy_from_slice(nonce);
                let nonce = whole;
                let payload = Payload {
                    msg: sealed,
                    aad: path.as_bytes(),
                };
                cipher.decrypt(&XNonce::from(nonce), payload).map_err(|_| {
                    SyncError::foreign(path, "it does not open with this key: damaged or moved")
                })?
            }
            (SEALED, None) => return Err(SyncError::PassphraseNeeded),
            (0, Some(_)) => {
                return Err(SyncError::foreign(
                    path,
                    "it is not encrypted in an encrypted folder",
                ));
            }
            _ => return Err(SyncError::foreign(path, "unknown flags")),
        };
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(packed.as_slice())
            .take(MAX_PLAIN)
            .read_to_end(&mut plain)
            .map_err(|e| SyncError::foreign(path, format!("it is cut short or damaged ({e})")))?;
        Ok(plain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_file_opens_only_with_its_passphrase_and_at_its_path() {
        let (seal, kdf) = Seal::create(&SecretString::from("correct horse")).unwrap();
        let file = seal.seal("devices/a/1.batch", b"records").unwrap();
        assert!(!file.windows(7).any(|w| w == b"records"));
        let again = Seal::open_with(&SecretString::from("correct horse"), &kdf).unwrap();
        assert_eq!(again.open("devices/a/1.batch", &file).unwrap(), b"records");
        assert!(matches!(
            Seal::open_with(&SecretString::from("wrong"), &kdf),
            Err(SyncError::WrongPassphrase)
        ));
        assert!(matches!(
            again.open("devices/a/2.batch", &file),
            Err(SyncError::Foreign { .. })
        ));
        assert!(matches!(
            Seal::plain().open("devices/a/1.batch", &file),
            Err(SyncError::PassphraseNeeded)
        ));
    }

    #[test]
    fn a_cut_or_foreign_file_is_refused_in_words() {
        let seal = Seal::plain();
        let file = seal.seal("x", &vec![b'a'; 10_000]).unwrap();
        let cut = &file[..file.len() / 2];
        let err = seal.open("x", cut).unwrap_err().to_string();
        assert!(err.contains("cut short or damaged"), "{err}");
        let err = seal
            .open("x", b"<html>hello</html>")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a Switchboard sync file"), "{err}");
        let mut newer = file.clone();
        newer[4] = 9;
        assert!(matches!(
            seal.open("x", &newer),
            Err(SyncError::NewerFormat { found: 9, .. })
        ));
    }
}
