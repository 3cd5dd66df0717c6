//! memory-serve loads its assets in the build script: PEERS_ROOT's files, as nginx serves them.

fn main() {
    println!("cargo::rerun-if-env-changed=PEERS_ROOT");
    let root = std::env::var("PEERS_ROOT").expect("PEERS_ROOT: the folder to embed");
    memory_serve::load_directory(root);
}
