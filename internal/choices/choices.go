// Package choices holds the choice tables of the APIs: languages,
// programming languages, repository types, privacy levels, version types,
// versioning schemes, documentation types, build states, redirect and
// integration types. Codes are case-sensitive, as Read the Docs has them.
package choices

// Choice is a code and its display name.
type Choice struct {
	Code, Name string
}

// Table is an ordered list of choices.
type Table []Choice

// Has reports whether code is one of the table's codes.
func (t Table) Has(code string) bool {
	for _, c := range t {
		if c.Code == code {
			return true
		}
	}
	return false
}

// Name returns the display name of code, "Unknown" when it is not in the table.
func (t Table) Name(code string) string {
	for _, c := range t {
		if c.Code == code {
			return c.Name
		}
	}
	return "Unknown"
}

// Codes lists the table's codes in order.
func (t Table) Codes() []string {
	out := make([]string, len(t))
	for i, c := range t {
		out[i] = c.Code
	}
	return out
}

// Languages are the language codes of a project, in stored order. Default
// "en".
var Languages = Table{
	{"aa", "Afar"},
	{"ab", "Abkhaz"},
	{"acr", "Achi"},
	{"af", "Afrikaans"},
	{"agu", "Awakateko"},
	{"am", "Amharic"},
	{"ar", "Arabic"},
	{"as", "Assamese"},
	{"ay", "Aymara"},
	{"az", "Azerbaijani"},
	{"ba", "Bashkir"},
	{"be", "Belarusian"},
	{"bg", "Bulgarian"},
	{"bh", "Bihari"},
	{"bi", "Bislama"},
	{"bn", "Bengali"},
	{"bo", "Tibetan"},
	{"br", "Breton"},
	{"ca", "Catalan"},
	{"caa", "Ch'orti'"},
	{"cac", "Chuj"},
	{"cab", "Garífuna"},
	{"cak", "Kaqchikel"},
	{"co", "Corsican"},
	{"cs", "Czech"},
	{"cy", "Welsh"},
	{"da", "Danish"},
	{"de", "German"},
	{"dz", "Dzongkha"},
	{"el", "Greek"},
	{"en", "English"},
	{"eo", "Esperanto"},
	{"es", "Spanish"},
	{"et", "Estonian"},
	{"eu", "Basque"},
	{"fa", "Iranian"},
	{"fi", "Finnish"},
	{"fj", "Fijian"},
	{"fo", "Faroese"},
	{"fr", "French"},
	{"fy", "Western Frisian"},
	{"ga", "Irish"},
	{"gd", "Scottish Gaelic"},
	{"gl", "Galician"},
	{"gn", "Guarani"},
	{"gu", "Gujarati"},
	{"ha", "Hausa"},
	{"hi", "Hindi"},
	{"he", "Hebrew"},
	{"hr", "Croatian"},
	{"hu", "Hungarian"},
	{"hy", "Armenian"},
	{"ia", "Interlingua"},
	{"id", "Indonesian"},
	{"ie", "Interlingue"},
	{"ik", "Inupiaq"},
	{"is", "Icelandic"},
	{"it", "Italian"},
	{"itz", "Itza'"},
	{"iu", "Inuktitut"},
	{"ixl", "Ixil"},
	{"ja", "Japanese"},
	{"jac", "Popti'"},
	{"jv", "Javanese"},
	{"ka", "Georgian"},
	{"kjb", "Q'anjob'al"},
	{"kek", "Q'eqchi'"},
	{"kk", "Kazakh"},
	{"kl", "Kalaallisut"},
	{"km", "Khmer"},
	{"kn", "Kannada"},
	{"knj", "Akateko"},
	{"ko", "Korean"},
	{"ks", "Kashmiri"},
	{"ku", "Kurdish"},
	{"ky", "Kyrgyz"},
	{"la", "Latin"},
	{"ln", "Lingala"},
	{"lo", "Lao"},
	{"lt", "Lithuanian"},
	{"lv", "Latvian"},
	{"mam", "Mam"},
	{"mg", "Malagasy"},
	{"mi", "Maori"},
	{"mk", "Macedonian"},
	{"ml", "Malayalam"},
	{"mn", "Mongolian"},
	{"mop", "Mopan"},
	{"mr", "Marathi"},
	{"ms", "Malay"},
	{"mt", "Maltese"},
	{"my", "Burmese"},
	{"na", "Nauru"},
	{"ne", "Nepali"},
	{"nl", "Dutch"},
	{"no", "Norwegian"},
	{"oc", "Occitan"},
	{"om", "Oromo"},
	{"or", "Oriya"},
	{"pa", "Panjabi"},
	{"pl", "Polish"},
	{"pnb", "Western Punjabi"},
	{"poc", "Poqomam"},
	{"poh", "Poqomchi"},
	{"ps", "Pashto"},
	{"pt", "Portuguese"},
	{"qu", "Quechua"},
	{"quc", "K'iche'"},
	{"qum", "Sipakapense"},
	{"quv", "Sakapulteko"},
	{"rm", "Romansh"},
	{"rn", "Kirundi"},
	{"ro", "Romanian"},
	{"ru", "Russian"},
	{"rw", "Kinyarwanda"},
	{"sa", "Sanskrit"},
	{"sd", "Sindhi"},
	{"sg", "Sango"},
	{"si", "Sinhala"},
	{"sk", "Slovak"},
	{"skr", "Saraiki"},
	{"sl", "Slovenian"},
	{"sm", "Samoan"},
	{"sn", "Shona"},
	{"so", "Somali"},
	{"sq", "Albanian"},
	{"sr", "Serbian"},
	{"ss", "Swati"},
	{"st", "Southern Sotho"},
	{"su", "Sudanese"},
	{"sv", "Swedish"},
	{"sw", "Swahili"},
	{"ta", "Tamil"},
	{"te", "Telugu"},
	{"tg", "Tajik"},
	{"th", "Thai"},
	{"ti", "Tigrinya"},
	{"tk", "Turkmen"},
	{"tl", "Tagalog"},
	{"tn", "Tswana"},
	{"to", "Tonga"},
	{"tr", "Turkish"},
	{"ts", "Tsonga"},
	{"tt", "Tatar"},
	{"ttc", "Tektiteko"},
	{"tzj", "Tz'utujil"},
	{"tw", "Twi"},
	{"ug", "Uyghur"},
	{"uk", "Ukrainian"},
	{"ur", "Urdu"},
	{"usp", "Uspanteko"},
	{"uz", "Uzbek"},
	{"vi", "Vietnamese"},
	{"vo", "Volapuk"},
	{"wo", "Wolof"},
	{"xh", "Xhosa"},
	{"xin", "Xinka"},
	{"yi", "Yiddish"},
	{"yo", "Yoruba"},
	{"za", "Zhuang"},
	{"zh", "Chinese"},
	{"zu", "Zulu"},
	{"nb_NO", "Norwegian Bokmal"},
	{"pt_BR", "Brazilian Portuguese"},
	{"es_MX", "Mexican Spanish"},
	{"uk_UA", "Ukrainian"},
	{"zh_CN", "Simplified Chinese"},
	{"zh_TW", "Traditional Chinese"},
}

// ProgrammingLanguages are the programming language codes of a project.
// Default "words"; "" is also accepted.
var ProgrammingLanguages = Table{
	{"words", "Only Words"},
	{"py", "Python"},
	{"js", "JavaScript"},
	{"php", "PHP"},
	{"ruby", "Ruby"},
	{"perl", "Perl"},
	{"java", "Java"},
	{"go", "Go"},
	{"julia", "Julia"},
	{"c", "C"},
	{"csharp", "C#"},
	{"cpp", "C++"},
	{"objc", "Objective-C"},
	{"css", "CSS"},
	{"ts", "TypeScript"},
	{"swift", "Swift"},
	{"vb", "Visual Basic"},
	{"r", "R"},
	{"scala", "Scala"},
	{"groovy", "Groovy"},
	{"coffee", "CoffeeScript"},
	{"lua", "Lua"},
	{"haskell", "Haskell"},
	{"other", "Other"},
}

// RepoTypes are the version control systems of a repository.
var RepoTypes = Table{{"git", "Git"}, {"svn", "Subversion"}, {"hg", "Mercurial"}, {"bzr", "Bazaar"}}

// PrivacyLevels are the privacy levels of projects and versions.
var PrivacyLevels = Table{{"public", "Public"}, {"protected", "Protected"}, {"private", "Private"}}

// VersionTypes are the types of a version; external is a pull request's.
var VersionTypes = Table{{"branch", "Branch"}, {"tag", "Tag"}, {"unknown", "Unknown"}, {"external", "External"}}

// Versioning schemes: the URL layouts of a project's docs.
const (
	MultipleVersionsWithTranslations    = "multiple_versions_with_translations"
	MultipleVersionsWithoutTranslations = "multiple_versions_without_translations"
	SingleVersionWithoutTranslations    = "single_version_without_translations"
)

// VersioningSchemes is the choice table of a project's versioning_scheme,
// with Read the Docs' display names.
var VersioningSchemes = Table{
	{MultipleVersionsWithTranslations, "Multiple versions with translations (/<language>/<version>/<filename>)"},
	{MultipleVersionsWithoutTranslations, "Multiple versions without translations (/<version>/<filename>)"},
	{SingleVersionWithoutTranslations, "Single version without translations (/<filename>)"},
}

// IsSingleVersion reports whether a versioning scheme serves one version
// without translations, which the APIs also show as the boolean
// single_version.
func IsSingleVersion(scheme string) bool { return scheme == SingleVersionWithoutTranslations }

// DocumentationTypes are the documentation types of a project (v2's
// documentation_type).
var DocumentationTypes = Table{
	{"sphinx", "Sphinx Html"},
	{"mkdocs", "Mkdocs (Markdown)"},
	{"sphinx_htmldir", "Sphinx HtmlDir"},
	{"sphinx_singlehtml", "Sphinx Single Page HTML"},
}

// BuildTypes are the kinds of a build.
var BuildTypes = Table{{"html", "HTML"}}

// BuildStates are the states of a build, in the order a build goes through
// them.
var BuildStates = Table{
	{"triggered", "Triggered"},
	{"cloning", "Cloning"},
	{"installing", "Installing"},
	{"building", "Building"},
	{"finished", "Finished"},
}

// RedirectTypes are the types of a redirect; clean_url_to_html and
// html_to_clean_url are allowed once per project.
var RedirectTypes = Table{
	{"prefix", "Prefix Redirect"},
	{"page", "Page Redirect"},
	{"exact", "Exact Redirect"},
	{"sphinx_html", "Sphinx HTMLDir -> HTML"},
	{"sphinx_htmldir", "Sphinx HTML -> HTMLDir"},
	{"clean_url_to_html", "Clean URL to HTML (file/ to file.html)"},
	{"html_to_clean_url", "HTML to clean URL (file.html to file/)"},
}

// PythonInterpreters are the Pythons a project's builds may use, with Read
// the Docs' display names.
var PythonInterpreters = Table{{"python", "CPython 2.x"}, {"python3", "CPython 3.x"}}

// UploadStatuses are how an upload's client reports the upload went.
var UploadStatuses = Table{{"success", "Success"}, {"failed", "Failed"}}

// IntegrationTypes are the types of an incoming-webhook integration.
var IntegrationTypes = Table{
	{"github_webhook", "GitHub incoming webhook"},
	{"gitlab_webhook", "GitLab incoming webhook"},
	{"bitbucket_webhook", "Bitbucket incoming webhook"},
	{"api_webhook", "Generic API incoming webhook"},
}
