//! A second launch and the running window: on Linux the single-instance plugin owns a name on
//! the session bus (`<identifier>.SingleInstance`), and a launch that finds it taken hands its
//! arguments to the running window and exits while the app is being built. The engine opens
//! while GTK starts (see `run_gui`), so without a look ahead a second launch would open the
//! profile's database — and migrate it, when it is a newer build than the window — only to exit
//! a moment later. [`Gate`] holds the engine back in a launch that finds the name taken, until
//! the build has shown this process is the one that stays.

use tokio::sync::oneshot;

/// The bus name the single-instance plugin (without its `semver` feature) owns for the app
/// whose identifier is `identifier`.
pub fn bus_name(identifier: &str) -> String {
    format!("{identifier}.SingleInstance")
}

/// Whether `name` has an owner on the session bus; `Err` says why it could not be told.
#[cfg(target_os = "linux")]
pub async fn bus_name_owned(name: &str) -> Result<bool, String> {
    let connection =
        (zbus::Connection::session().await).map_err(|e| format!("no session bus to ask: {e}"))?;
    let proxy = (zbus::fdo::DBusProxy::new(&connection).await).map_err(|e| e.to_string())?;
    let name = zbus::names::BusName::try_from(name).map_err(|e| e.to_string())?;
    (proxy.name_has_owner(name).await).map_err(|e| e.to_string())
}

/// Holds the engine's opening back in a launch that another window will take over.
#[derive(Debug)]
pub struct Gate {
    stays: oneshot::Sender<()>,
}

/// The waiting side of a [`Gate`], moved into the task that opens the engine.
#[derive(Debug)]
pub struct Waiter {
    name: String,
    stays: oneshot::Receiver<()>,
}

/// A gate on the single-instance name of the app whose identifier is `identifier`.
pub fn gate(identifier: &str) -> (Gate, Waiter) {
    let (stays, waits) = oneshot::channel();
    let name = bus_name(identifier);
    (Gate { stays }, Waiter { name, stays: waits })
}

impl Gate {
    /// Says that this process stays (the app was built: it owns the name, or no bus could
    /// tell); the engine may open.
    pub fn open(self) {
        let _ = self.stays.send(());
    }
}

impl Waiter {
    /// Returns at once when no other window owns the name; otherwise once [`Gate::open`] says
    /// this process stays (the other window left before the hand-over), and never when it
    /// hands over (the process exits first).
    pub async fn wait(self) {
        #[cfg(target_os = "linux")]
        if let Ok(true) = bus_name_owned(&self.name).await {
            tracing::info!("another window has this app open: the engine waits for the hand-over");
            let _ = self.stays.await;
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (self.name, self.stays);
    }
}
