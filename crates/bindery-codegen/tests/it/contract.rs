//! The generated-code contract guards itself: the surface generated code names (the runtime's
//! private module, the shapes it fills in, the macros it calls, the module wrapper, and
//! `EmbeddedFile` with its hidden fields) is hashed, comments and docs left out, and must be the
//! surface recorded for the current `CONTRACT`. Changing it without a bump fails here.

use syn::visit_mut::VisitMut;

/// The contract and the hash of its surface. After a deliberate change of the surface: bump
/// `bindery_core::CONTRACT`, then record the hash this test prints.
/// A change that generated code of the same contract cannot tell (a new arm of a macro for a
/// feature, taking the same input; two arms of one expansion merged) is recorded under the same
/// contract.
const RECORDED: (u32, &str) = (8, "e81acf063aef35cb53123242e65336db");

/// The runtime's files that make the surface (beside `__private_v{CONTRACT}.rs`), and whether
/// each holds it whole (or only the `EmbeddedFile` struct).
const SURFACE: [(&str, bool); 4] = [
    ("layout.rs", true),
    ("macros.rs", true),
    ("contract.rs", true),
    ("file.rs", false),
];

/// Drops doc attributes (comments are gone already): only what code sees counts.
struct WithoutDocs;

impl VisitMut for WithoutDocs {
    fn visit_attributes_mut(&mut self, attributes: &mut Vec<syn::Attribute>) {
        attributes.retain(|attribute| !attribute.path().is_ident("doc"));
        for attribute in attributes {
            self.visit_attribute_mut(attribute);
        }
    }
}

fn surface_hash() -> String {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bindery/src");
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let private = format!("__private_v{}.rs", bindery_codegen::CONTRACT);
    let files = std::iter::once((private.as_str(), true)).chain(SURFACE);
    for (file, whole) in files {
        let text = std::fs::read_to_string(source.join(file)).expect("runtime source");
        let mut parsed = syn::parse_file(&text).expect("parses");
        WithoutDocs.visit_file_mut(&mut parsed);
        let items = parsed.items.into_iter().filter(|item| {
            // Tests are not the surface; of file.rs only the struct is.
            let is_test = matches!(item, syn::Item::Mod(module) if module.ident == "tests");
            let is_struct =
                matches!(item, syn::Item::Struct(found) if found.ident == "EmbeddedFile");
            !is_test && (whole || is_struct)
        });
        for item in items {
            hasher.update(quote::quote!(#item).to_string().as_bytes());
        }
    }
    format!("{:032x}", hasher.digest128())
}

#[test]
fn the_generated_code_surface_is_the_one_recorded_for_this_contract() {
    let hash = surface_hash();
    let contract = bindery_codegen::CONTRACT;
    assert_eq!(
        contract, RECORDED.0,
        "CONTRACT is now {contract}: record its surface in RECORDED: ({contract}, \"{hash}\")"
    );
    assert_eq!(
        hash,
        RECORDED.1,
        "the generated-code surface changed under contract {contract}: bump \
         bindery_core::CONTRACT (and __private_v{contract}, __bindery_module!'s message), \
         regenerate the committed modules, then record the new surface: ({}, \"{hash}\")",
        contract + 1
    );
}
