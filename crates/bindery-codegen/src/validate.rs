//! Checking options once, for every front door: each problem with what it concerns, so that the
//! macro points its error at the argument and the generator names the flag, both in the one
//! wording of [`Error`].

use crate::encoding::precompress_problem;
use crate::{Error, Options, normalise_prefix, scan::compile_glob};

/// What a [`Problem`] is about: the folder, or an option (by its name in
/// [`SETTINGS`](crate::options::SETTINGS)), and for an option that takes a list, the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Concern {
    /// The folder to embed.
    Folder,
    /// The option of this name; for a list, the item at this index, in the order given.
    Setting {
        /// The option's name (a macro key).
        name: &'static str,
        /// The item of a list the problem is about.
        index: Option<usize>,
    },
}

impl Concern {
    fn of(name: &'static str) -> Concern {
        Concern::Setting { name, index: None }
    }

    fn item(name: &'static str, index: usize) -> Concern {
        Concern::Setting {
            name,
            index: Some(index),
        }
    }
}

/// One thing wrong with [`Options`]: what it concerns, and the error.
#[derive(Debug)]
pub struct Problem {
    /// The option at fault.
    pub concern: Concern,
    /// What is wrong, in the wording every front door shows.
    pub error: Error,
    /// Which folder's settings: 0 for the first (and the whole catalog's), `n` for the `n`th
    /// added with [`Options::folder`].
    pub folder: usize,
}

impl Options {
    /// Every problem of these options, before anything is read but the folder's metadata:
    /// a bad prefix, a gzip level above 9, an encoding given twice or not compiled in, a glob
    /// that does not compile, a folder that is missing (unless allowed) or not a folder.
    /// [`build`](Options::build) fails with the first of them.
    ///
    /// ```
    /// use bindery_codegen::{Concern, Options};
    ///
    /// let problems = Options::new("../../assets/fixtures")
    ///     .exclude("ok/**")
    ///     .exclude("a[")
    ///     .prefix("../up")
    ///     .validate()
    ///     .unwrap_err();
    /// let concerns: Vec<Concern> = problems.iter().map(|problem| problem.concern).collect();
    /// assert_eq!(concerns, [
    ///     Concern::Setting { name: "prefix", index: None },
    ///     Concern::Setting { name: "exclude", index: Some(1) },
    /// ]);
    /// assert_eq!(problems[1].error.to_string(), "invalid glob `a[`: unclosed character class; missing ']'");
    /// ```
    pub fn validate(&self) -> Result<(), Vec<Problem>> {
        let mut problems = Vec::new();
        for (folder, part) in self.parts().iter().enumerate() {
            let mut push = |concern, error| {
                problems.push(Problem {
                    concern,
                    error,
                    folder,
                })
            };
            if folder == 0 {
                part.catalog_problems(&mut push);
            } else {
                whole_catalog_settings(&self.folders[folder - 1], &mut push);
            }
            part.folder_problems(&mut push);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// The problems of the settings each folder has its own of, and of the folder itself.
    fn folder_problems(&self, push: &mut dyn FnMut(Concern, Error)) {
        if let Err(error) = normalise_prefix(&self.prefix) {
            push(Concern::of("prefix"), error);
        }
        for (name, globs) in [
            ("include", &self.rules.include),
            ("exclude", &self.rules.exclude),
        ] {
            for (index, glob) in globs.iter().enumerate() {
                if let Err(error) = compile_glob(glob) {
                    push(Concern::item(name, index), error.into());
                }
            }
        }
        if let Err(error) = self.folder_exists() {
            push(Concern::Folder, error);
        }
        if self.rules.gitignore && !cfg!(feature = "gitignore") {
            push(
                Concern::of("gitignore"),
                Error::FeatureUnavailable {
                    setting: "gitignore",
                    feature: "gitignore",
                },
            );
        }
    }

    /// The problems of the settings of the whole catalog.
    fn catalog_problems(&self, push: &mut dyn FnMut(Concern, Error)) {
        if self.level > 9 {
            push(Concern::of("level"), Error::Level { level: self.level });
        }
        for index in 0..self.precompress.len() {
            if let Some(error) = precompress_problem(&self.precompress, index) {
                push(Concern::item("precompress", index), error);
            }
        }
        for (index, rule) in self.rules.types.iter().enumerate() {
            if let Err(error) = bindery_core::describe::MediaTypes::new(std::slice::from_ref(rule))
            {
                push(Concern::item("types", index), error);
            }
        }
        self.feature_problems(push);
        // What compares files by SHA-256 (kept releases, dictionaries) or names it (an import
        // map's integrity) needs it recorded.
        let by_sha256 = [
            (self.manifest.is_some(), "manifest"),
            (self.releases.is_some(), "releases"),
            (self.dictionaries, "dictionaries"),
        ];
        for (asked, setting) in by_sha256 {
            if asked && self.rules.integrity.is_none() {
                push(Concern::of("integrity"), Error::NeedsIntegrity { setting });
            }
        }
        if syn::parse_str::<syn::Path>(&self.crate_path).is_err() {
            push(
                Concern::of("crate_path"),
                Error::CratePath {
                    path: self.crate_path.clone(),
                },
            );
        }
    }

    /// Settings asked for whose cargo feature is off: each names the feature to turn on.
    fn feature_problems(&self, push: &mut dyn FnMut(Concern, Error)) {
        // Settings whose work a cargo feature compiles: (asked, setting, feature, compiled).
        let featured = [
            (
                self.mode == crate::Mode::Gzip,
                "mode = \"gzip\"",
                "gzip",
                cfg!(feature = "gzip"),
            ),
            // Asked for: integrity that `manifest` or `releases` turned on comes with their
            // features, and without them their own error says what to turn on.
            (
                self.rules.integrity.is_some() && self.integrity_given,
                "integrity",
                "integrity",
                cfg!(feature = "integrity"),
            ),
            (
                self.script_hashes,
                "script_hashes",
                "csp",
                cfg!(feature = "csp"),
            ),
            (
                self.manifest.is_some(),
                "manifest",
                "vite",
                cfg!(feature = "vite"),
            ),
            (
                self.releases.is_some(),
                "releases",
                "releases",
                cfg!(feature = "releases"),
            ),
            (
                self.dictionaries,
                "dictionaries",
                "zstd",
                cfg!(feature = "zstd"),
            ),
        ];
        for (asked, setting, feature, compiled) in featured {
            if asked && !compiled {
                // The attribute is the setting's name (`mode`), the message names its value.
                let name = setting.split(' ').next().unwrap_or(setting);
                push(
                    Concern::of(name),
                    Error::FeatureUnavailable { setting, feature },
                );
            }
        }
    }

    /// Whether the folder exists (`false`: missing and allowed to be); an error when it is
    /// missing or not a folder.
    pub(crate) fn folder_exists(&self) -> Result<bool, Error> {
        match std::fs::metadata(&self.root) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if self.allow_missing {
                    Ok(false)
                } else {
                    Err(Error::MissingFolder {
                        path: self.root.clone(),
                        hint: (!self.hint.is_empty()).then(|| self.hint.clone()),
                    })
                }
            }
            Err(error) => Err(Error::read(&self.root, error)),
            Ok(metadata) if !metadata.is_dir() => Err(Error::NotAFolder {
                path: self.root.clone(),
            }),
            Ok(_) => Ok(true),
        }
    }
}

/// A further folder's settings that are the whole catalog's: each one that differs from its
/// default is refused, for it would be silently ignored.
fn whole_catalog_settings(folder: &Options, push: &mut dyn FnMut(Concern, Error)) {
    let defaults = Options::new(&folder.root);
    for setting in crate::options::SETTINGS {
        // Integrity a further folder's `manifest` turned on is that setting's error, not another.
        let is_implied = setting.name == "integrity" && !folder.integrity_given;
        if !setting.per_folder && !is_implied && setting.get(folder) != setting.get(&defaults) {
            push(
                Concern::of(setting.name),
                Error::CatalogSetting {
                    name: setting.name.to_owned(),
                },
            );
        }
    }
    if !folder.folders.is_empty() {
        push(
            Concern::Folder,
            Error::CatalogSetting {
                name: "folder".to_owned(),
            },
        );
    }
}
