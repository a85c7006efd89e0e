//! Enums of Maui keywords: the one macro that declares them.

/// Declares an enum of Maui keywords with its reader, writer and serde form.
///
/// `keyword_enum!(Name { Variant = "KEYWORD", ... } aliases { "ALIAS" => Variant })`.
/// The configuration's `keywords!` adds the parameter parser on top.
#[macro_export]
macro_rules! keyword_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $kw:literal),+ $(,)? }
     $(aliases { $($alias:literal => $avar:ident),* $(,)? })?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* #[doc = concat!("`", $kw, "`")] $var),+ }

        impl $name {
            /// Every keyword, in declaration order.
            pub const KEYWORDS: &'static [&'static str] = &[$($kw),+];

            /// Other spellings read as a keyword, with the variant they mean.
            pub const ALIASES: &'static [(&'static str, $name)] = &[$($(($alias, $name::$avar)),*)?];

            /// The keyword as Maui writes it.
            pub fn keyword(self) -> &'static str {
                match self { $($name::$var => $kw),+ }
            }

            /// Reads a keyword (any case) or one of its aliases.
            pub fn from_keyword(s: &str) -> Option<Self> {
                let up = s.to_ascii_uppercase();
                $(if up == $kw { return Some($name::$var); })+
                $($(if up == $alias { return Some($name::$avar); })*)?
                None
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.keyword())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::from_keyword(&s).ok_or_else(|| {
                    serde::de::Error::custom(format!("expected one of {}, got \"{}\"", Self::KEYWORDS.join(", "), s))
                })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.keyword())
            }
        }
    };
}
