//! Builds the front end (Vite's vanilla template, `frontend/`) into `$OUT_DIR/dist`, where
//! `embed!("$OUT_DIR/dist", manifest = "vite")` finds it; reruns when its sources change.

const BASE: &str = "/"; // Where the server mounts it: Vite's `base`, given to the server too.

fn main() -> Result<(), bindery_codegen::FrontendError> {
    bindery_codegen::Frontend::vite("frontend").base(BASE).build()?;
    println!("cargo::rustc-env=VITE_BASE={BASE}");
    Ok(())
}
