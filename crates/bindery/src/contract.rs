//! The generated-code contract: a generated module meets only a runtime that reads the contract
//! it was written for.
//!
//! `bindery embed` wraps the catalog it writes in [`__bindery_module!`](crate::__bindery_module),
//! recording the contract version, the generator and the command that regenerates the module.
//! The macro's name and the shape of its header never change; what it expands to does. A module
//! of the contract this runtime reads expands to its items, which name
//! `::bindery::__private_v8`; any other gives one compile error naming both versions and the
//! command, and an empty catalog under the module's name so that nothing else fails.

// The contract version this runtime reads is `facts::contract::CONTRACT` (bindery-core's, copied), which `bindery-codegen`
// emits too (the crates pin each other exactly); the macro below spells it in literals.

/// A generated module: the catalog it defines, when it was written for this runtime's contract.
#[doc(hidden)]
#[macro_export]
macro_rules! __bindery_module {
    (
        contract = 8;
        generator = $generator:literal;
        regenerate = $command:literal;
        name = $name:ident;
        $($items:item)*
    ) => {
        $($items)*
    };
    (
        contract = $contract:literal;
        generator = $generator:literal;
        regenerate = $command:literal;
        name = $name:ident;
        $($ignored:tt)*
    ) => {
        ::core::compile_error!(::core::concat!(
            "bindery: this generated module was written by ", $generator,
            " for generated-code contract ", $contract,
            ", but bindery 0.1.0 reads contract 8; regenerate it with: ", $command
        ));
        /// Empty: the generated module above is for another version of bindery.
        pub static $name: $crate::Catalog = $crate::Catalog::empty($crate::Mode::Static);
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_message_names_this_version() {
        // The macro spells the version in a literal (`concat!` takes no constants).
        let source = include_str!("contract.rs");
        let expected = format!(
            "but bindery {} reads contract {}",
            env!("CARGO_PKG_VERSION"),
            crate::facts::contract::CONTRACT
        );
        assert!(
            source.contains(&expected),
            "update the message of __bindery_module!"
        );
        assert!(source.contains(&format!("contract = {};", crate::facts::contract::CONTRACT)));
    }

    #[test]
    fn the_private_module_and_the_macros_name_this_contract() {
        // `mod` and `macro_rules!` take no constants: the name is spelled, and held here.
        let current = format!("__private_v{}", crate::facts::contract::CONTRACT);
        for (file, source) in [
            ("lib.rs", include_str!("lib.rs")),
            ("macros.rs", include_str!("macros.rs")),
        ] {
            let spelled: Vec<&str> = source
                .match_indices("__private_v")
                .map(|(at, _)| {
                    let digits = source[at + "__private_v".len()..]
                        .find(|c: char| !c.is_ascii_digit())
                        .unwrap_or(0);
                    &source[at..at + "__private_v".len() + digits]
                })
                .collect();
            assert!(
                !spelled.is_empty() || file == "macros.rs",
                "{file} names no contract"
            );
            assert!(
                spelled.iter().all(|name| *name == current),
                "{file}: {spelled:?}"
            );
        }
    }
}
