//! The languages of the names in an answer (`?lang=`).

/// A language of the names in the answer (`?lang=`); names missing in it fall back to English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    /// `en`
    #[default]
    English,
    /// `de`
    German,
    /// `fr`
    French,
    /// `es`
    Spanish,
    /// `ja`
    Japanese,
    /// `pt-BR`
    BrazilianPortuguese,
    /// `ru`
    Russian,
    /// `zh-CN`
    SimplifiedChinese,
}

impl Language {
    /// Every language code the API accepts.
    pub const CODES: [&'static str; 8] = ["en", "de", "fr", "es", "ja", "pt-BR", "ru", "zh-CN"];

    /// The language for a `lang` code, or `None` for an unknown one.
    ///
    /// ```
    /// use geo_server::language::Language;
    /// assert_eq!(Language::from_code("pt-BR"), Some(Language::BrazilianPortuguese));
    /// assert_eq!(Language::from_code("xx"), None);
    /// ```
    pub fn from_code(code: &str) -> Option<Language> {
        Some(match code {
            "en" => Language::English,
            "de" => Language::German,
            "fr" => Language::French,
            "es" => Language::Spanish,
            "ja" => Language::Japanese,
            "pt-BR" => Language::BrazilianPortuguese,
            "ru" => Language::Russian,
            "zh-CN" => Language::SimplifiedChinese,
            _ => return None,
        })
    }

    /// The language's code, as `?lang=` takes it.
    ///
    /// ```
    /// use geo_server::language::Language;
    /// assert_eq!(Language::BrazilianPortuguese.code(), "pt-BR");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::German => "de",
            Language::French => "fr",
            Language::Spanish => "es",
            Language::Japanese => "ja",
            Language::BrazilianPortuguese => "pt-BR",
            Language::Russian => "ru",
            Language::SimplifiedChinese => "zh-CN",
        }
    }
}
