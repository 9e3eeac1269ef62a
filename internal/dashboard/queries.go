package dashboard

// The dashboard's GraphQL operations, all in this file: the pages run them
// through the same executor as /graphql, and the build page's script posts
// buildQuery to /graphql itself. Nothing else in the package reads data.
// Each mutation selects its payload's errors (graph.PayloadErrors), which
// the executor returns as the classified error the forms show by field.

import "docsd/graph"

// buildFields is the selection of a build that its pages show.
const buildFields = `id: databaseId state { code name } success error errorId commit created started finished duration
	version { slug verboseName privacyLevel } docsUrl`

// commandFields is the selection of a build command.
const commandFields = `id description command output exitCode runTime startTime`

const dashboardQuery = `query {
	viewer { username }
	projects(filter: { maintainedByViewer: true }, first: 100) {
		totalCount
		nodes {
			slug name privacyLevel repository { url } urls { home documentation }
			builds(first: 1) { nodes { ` + buildFields + ` } }
		}
	}
	organizations(first: 100) { nodes { slug name } }
}`

const importMutation = `mutation($name: String!, $url: String!, $type: RepositoryType!, $organization: String) {
	importProject(input: { name: $name, repository: { url: $url, type: $type }, organization: $organization }) { project { slug } ` + graph.PayloadErrors + ` }
}`

// projectFields is the head of every project page.
const projectFields = `slug name description privacyLevel defaultVersion viewerIsMaintainer
	repository { url type } urls { home documentation builds versions }`

const projectQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		versions(filter: { active: true }, first: 100) {
			nodes { slug verboseName built privacyLevel urls { documentation } lastBuild { ` + buildFields + ` } }
		}
		builds(first: 10) { nodes { ` + buildFields + ` } }
		badge { version imageUrl linkUrl }
	}
}`

const buildsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		versions(filter: { active: true }, first: 100) { nodes { slug verboseName } }
		builds(first: 50) { totalCount nodes { ` + buildFields + ` } }
	}
}`

// buildQuery renders a build page; buildSubscription is what the page's
// script then follows over Server-Sent Events (one request, whatever the
// build's length), with the same selection of the build.
const buildQuery = `query($slug: String!, $id: ID!) {
	project(slug: $slug) {
		` + projectFields + `
		build(id: $id) { ` + buildFields + ` commands { ` + commandFields + ` } }
	}
}`

const buildSubscription = `subscription($id: ID!) {
	buildUpdated(id: $id) { ` + buildFields + ` commands { ` + commandFields + ` } }
}`

const triggerMutation = `mutation($slug: String!, $version: String!) {
	triggerBuild(input: { project: $slug, version: $version }) { triggered build { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const versionsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		versions(first: 100) {
			nodes { slug verboseName type active hidden built privacyLevel urls { documentation } lastBuild { ` + buildFields + ` } }
		}
	}
}`

// downloadsQuery loads the downloads page: the active, built versions the
// viewer may see, in the versions page's order, with their formats (the
// docs host's URLs, as v3's downloads and the footer give them).
const downloadsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		versions(filter: { active: true, built: true }, first: 100) { nodes { slug verboseName downloads { pdf htmlzip epub } } }
	}
}`

const versionQuery = `query($slug: String!, $version: String!) {
	project(slug: $slug) {
		` + projectFields + `
		version(slug: $version) { slug verboseName type identifier active hidden built privacyLevel urls { documentation } }
	}
}`

const updateVersionMutation = `mutation($slug: String!, $version: String!, $active: Boolean!, $hidden: Boolean!, $privacy: PrivacyLevel!) {
	updateVersion(input: { project: $slug, version: $version, active: $active, hidden: $hidden, privacyLevel: $privacy }) { version { slug } ` + graph.PayloadErrors + ` }
}`

const cancelMutation = `mutation($id: ID!) { cancelBuild(input: { id: $id }) { build { id: databaseId } ` + graph.PayloadErrors + ` } }`

const retryMutation = `mutation($id: ID!) { retryBuild(input: { id: $id }) { build { id: databaseId } ` + graph.PayloadErrors + ` } }`

const settingsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		homepage storedDefaultBranch showVersionWarning language { code } programmingLanguage { code }
		versioningScheme tags readthedocsYamlPath externalBuildsPrivacyLevel viewerCanChangeAdminFields
		adminFields { externalBuildsEnabled skip enablePdfBuild enableEpubBuild addonsEnabled buildTimeLimit }
		versions(filter: { active: true }, first: 100) { nodes { slug verboseName } }
		organizationSlug organization { slug name viewerIsOwner } teams { slug name access }
	}
}`

// updateProjectMutation sends only the fields the settings form changed
// (and the slug).
const updateProjectMutation = `mutation($input: UpdateProjectInput!) {
	updateProject(input: $input) { project { slug } ` + graph.PayloadErrors + ` }
}`

const redirectsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		redirects(first: 100) { nodes { ` + redirectFields + ` } }
	}
}`

// redirectFields is the selection of a redirect, for the list and the
// edit page.
const redirectFields = `id: databaseId type fromUrl toUrl httpStatus position force enabled description`

// redirectQuery loads the redirect edit page: one redirect of a project.
const redirectQuery = `query($slug: String!, $id: Int!) {
	project(slug: $slug) {
		` + projectFields + `
		redirect(id: $id) { ` + redirectFields + ` }
	}
}`

// updateRedirectMutation saves the edit page's form, and moves a redirect
// (position).
const updateRedirectMutation = `mutation($input: UpdateRedirectInput!) {
	updateRedirect(input: $input) { redirect { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const createRedirectMutation = `mutation($input: CreateRedirectInput!) {
	createRedirect(input: $input) { redirect { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const deleteRedirectMutation = `mutation($input: DeleteRedirectInput!) { deleteRedirect(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

// Environment variables: values are write-only (the graph has no value field).
const variablesQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		environmentVariables(first: 100) { nodes { id: databaseId name public created } }
	}
}`

const createVariableMutation = `mutation($input: CreateEnvironmentVariableInput!) {
	createEnvironmentVariable(input: $input) { environmentVariable { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const deleteVariableMutation = `mutation($input: DeleteEnvironmentVariableInput!) { deleteEnvironmentVariable(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

const maintainersQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		users { username }
	}
}`

const addMaintainerMutation = `mutation($input: AddMaintainerInput!) { addMaintainer(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`

const removeMaintainerMutation = `mutation($input: RemoveMaintainerInput!) { removeMaintainer(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`

// Integrations: the incoming webhooks, with their URL and secret.
const integrationsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		integrations { id type secret webhookUrl created }
	}
}`

const createIntegrationMutation = `mutation($input: CreateIntegrationInput!) { createIntegration(input: $input) { integration { id } ` + graph.PayloadErrors + ` } }`

const deleteIntegrationMutation = `mutation($input: DeleteIntegrationInput!) { deleteIntegration(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

// Subprojects: the children nested under the project, by alias.
const subprojectsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		subprojects(first: 100) { nodes { alias child { slug name urls { home documentation } } } }
	}
}`

const createSubprojectMutation = `mutation($input: CreateSubprojectInput!) {
	createSubproject(input: $input) { subproject { alias } ` + graph.PayloadErrors + ` }
}`

const deleteSubprojectMutation = `mutation($input: DeleteSubprojectInput!) { deleteSubproject(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

// Translations: projects linked to this one as its translations
// (setTranslationOf; unlinking sets main to null).
const translationsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		translations(first: 100) { nodes { slug name language { code name } urls { home } } }
	}
}`

// Both take SetTranslationOfInput: {slug: the translation, main: this
// project} links, {slug: the translation, main: null} unlinks.
const addTranslationMutation = `mutation($input: SetTranslationOfInput!) {
	setTranslationOf(input: $input) { project { slug } ` + graph.PayloadErrors + ` }
}`

const removeTranslationMutation = addTranslationMutation

// resolveRedirectQuery is the redirects page's dry run: the docs host's own
// matching, asked through the graph.
const resolveRedirectQuery = `query($slug: String!, $path: String!) {
	project(slug: $slug) {
		resolveRedirect(path: $path) { location httpStatus onlyWhenPageMissing redirect { type fromUrl toUrl force } }
	}
}`

// API keys of the signed-in user (the key itself only in createApiToken's
// answer).
const tokensQuery = `query { viewer { apiTokens { id prefix name created } } }`

const createTokenMutation = `mutation($name: String!) {
	createApiToken(input: { name: $name }) { key apiToken { id prefix name created } ` + graph.PayloadErrors + ` }
}`

const revokeTokenMutation = `mutation($id: ID!) { revokeApiToken(input: { id: $id }) { deletedId ` + graph.PayloadErrors + ` } }`

// adminMutation writes the admin settings (superusers).
const adminMutation = `mutation($input: SetProjectAdminFieldsInput!) {
	setProjectAdminFields(input: $input) { project { slug } ` + graph.PayloadErrors + ` }
}`

// badgeQuery is the state of the badge at /projects/<slug>/badge/.
const badgeQuery = `query($slug: String!, $version: String, $token: String) {
	badgeStatus(project: $slug, version: $version, token: $token)
}`

// Custom domains.
const domainsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		domains { databaseId domain canonical https skipValidation validationStatus validationError validationProcessEnd nextCheck
			sslStatus sslError url dnsRecords { type name value } }
	}
}`

const createDomainMutation = `mutation($input: CreateDomainInput!) {
	createDomain(input: $input) { domain { databaseId } ` + graph.PayloadErrors + ` }
}`

const updateDomainMutation = `mutation($input: UpdateDomainInput!) {
	updateDomain(input: $input) { domain { databaseId } ` + graph.PayloadErrors + ` }
}`

const deleteDomainMutation = `mutation($input: DeleteDomainInput!) { deleteDomain(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

// The analytics pages' queries: a page's charts and tables over the days
// asked for, and the CSV downloads' rows page by page.
const (
	analyticsFields = `enabled since until retentionDays`
	trafficQuery    = `query($slug: String!, $days: Int) {
	project(slug: $slug) {
		` + projectFields + `
		analytics(days: $days) { ` + analyticsFields + ` pageViewsByDay { day count } topPages(limit: 25) { path url views } }
	}
}`
	searchAnalyticsQuery = `query($slug: String!, $days: Int) {
	project(slug: $slug) {
		` + projectFields + `
		analytics(days: $days) { ` + analyticsFields + ` searchesByDay { day count }
			topSearches(limit: 25) { query searches totalResults }
			searchesWithoutResults(limit: 25) { query searches totalResults } }
	}
}`
	trafficCSVQuery = `query($slug: String!, $days: Int, $offset: Int) {
	project(slug: $slug) {
		` + projectFields + `
		analytics(days: $days) { ` + analyticsFields + ` pageViews(limit: 100, offset: $offset) { day version path views } }
	}
}`
	searchCSVQuery = `query($slug: String!, $days: Int, $offset: Int) {
	project(slug: $slug) {
		` + projectFields + `
		analytics(days: $days) { ` + analyticsFields + ` searchQueries(limit: 100, offset: $offset) { day version query searches totalResults } }
	}
}`
)
