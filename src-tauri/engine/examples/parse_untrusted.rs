//! Reads one untrusted file the way the app does and prints the outcome, for measuring time and
//! peak memory (`/usr/bin/time -v`): `parse_untrusted gguf FILE`, `models DIR` (a models
//! folder listed), `attach FILE` (an attachment made ready: image, PDF or text).

use std::path::Path;

use switchboard_engine::agent::upload::{Ready, ready};
use switchboard_engine::local::ModelsDir;
use switchboard_engine::local::gguf::read_info;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, kind, path] = args.as_slice() else {
        return Err("usage: parse_untrusted gguf|models|attach PATH".into());
    };
    let path = Path::new(path);
    match kind.as_str() {
        "gguf" => println!("{:?}", read_info(path)),
        "models" => {
            for m in ModelsDir::new(path).list()? {
                println!("{} {} {:?}", m.name, m.size, m.info);
            }
        }
        "attach" => {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
            match ready(name, &std::fs::read(path)?) {
                Ok(Ready::Image(blob, _)) => println!("image {}×{}", blob.width, blob.height),
                Ok(Ready::File(file)) => println!("text of {} bytes", file.text.len()),
                Err(e) => println!("refused: {e}"),
            }
        }
        _ => return Err(format!("unknown kind {kind}").into()),
    }
    Ok(())
}
