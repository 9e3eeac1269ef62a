package dashboard

// The dashboard's GraphQL operations, all in this file: the pages run them
// through the same executor as /graphql, and the build page's script posts
// buildQuery to /graphql itself. Nothing else in the package reads data.

// buildFields is the selection of a build that its pages show.
const buildFields = `id: databaseId state { code name } success error errorId commit created started finished duration
	version { slug verboseName } docsUrl`

// commandFields is the selection of a build command.
const commandFields = `id description command output exitCode runTime`

const dashboardQuery = `query {
	viewer { username }
	projects(filter: { maintainedByViewer: true }, first: 100) {
		totalCount
		nodes {
			slug name privacyLevel repository { url } urls { home documentation }
			builds(first: 1) { nodes { ` + buildFields + ` } }
		}
	}
}`

const importMutation = `mutation($name: String!, $url: String!, $type: String!) {
	importProject(input: { name: $name, repository: { url: $url, type: $type } }) { slug }
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
const buildQuery = `query($slug: String!, $id: Int!) {
	project(slug: $slug) {
		` + projectFields + `
		build(id: $id) { ` + buildFields + ` commands { ` + commandFields + ` } }
	}
}`

const buildSubscription = `subscription($id: Int!) {
	buildUpdated(id: $id) { ` + buildFields + ` commands { ` + commandFields + ` } }
}`

const triggerMutation = `mutation($slug: String!, $version: String!) {
	triggerBuild(project: $slug, version: $version) { triggered build { id: databaseId } }
}`

const versionsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		versions(first: 100) {
			nodes { slug verboseName type active hidden built privacyLevel urls { documentation } lastBuild { ` + buildFields + ` } }
		}
	}
}`

const versionQuery = `query($slug: String!, $version: String!) {
	project(slug: $slug) {
		` + projectFields + `
		version(slug: $version) { slug verboseName type identifier active hidden built privacyLevel urls { documentation } }
	}
}`

const updateVersionMutation = `mutation($slug: String!, $version: String!, $active: Boolean!, $hidden: Boolean!, $privacy: String!) {
	updateVersion(project: $slug, version: $version, input: { active: $active, hidden: $hidden, privacyLevel: $privacy }) { slug }
}`

const cancelMutation = `mutation($id: Int!) { cancelBuild(id: $id) { id: databaseId } }`

const retryMutation = `mutation($id: Int!) { retryBuild(id: $id) { build { id: databaseId } } }`

const settingsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		homepage storedDefaultBranch showVersionWarning language { code } programmingLanguage { code }
		versioningScheme tags readthedocsYamlPath externalBuildsPrivacyLevel viewerCanChangeAdminFields
		adminFields { externalBuildsEnabled skip enablePdfBuild enableEpubBuild addonsEnabled buildTimeLimit }
		versions(filter: { active: true }, first: 100) { nodes { slug verboseName } }
	}
}`

// updateProjectMutation sends only the fields the settings form changed.
const updateProjectMutation = `mutation($slug: String!, $input: UpdateProjectInput!) {
	updateProject(slug: $slug, input: $input) { slug }
}`

const redirectsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		redirects(first: 100) { nodes { id: databaseId type fromUrl toUrl httpStatus force enabled description } }
	}
}`

const createRedirectMutation = `mutation($slug: String!, $input: RedirectInput!) {
	createRedirect(project: $slug, input: $input) { id: databaseId }
}`

const deleteRedirectMutation = `mutation($slug: String!, $key: Int!) { deleteRedirect(project: $slug, id: $key) }`

// Environment variables: values are write-only (the graph has no value field).
const variablesQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		environmentVariables(first: 100) { nodes { id: databaseId name public created } }
	}
}`

const createVariableMutation = `mutation($slug: String!, $input: EnvironmentVariableInput!) {
	createEnvironmentVariable(project: $slug, input: $input) { id: databaseId }
}`

const deleteVariableMutation = `mutation($slug: String!, $key: Int!) { deleteEnvironmentVariable(project: $slug, id: $key) }`

const maintainersQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		users { username }
	}
}`

const addMaintainerMutation = `mutation($slug: String!, $username: String!) { addMaintainer(slug: $slug, username: $username) { slug } }`

const removeMaintainerMutation = `mutation($slug: String!, $key: String!) { removeMaintainer(slug: $slug, username: $key) { slug } }`

// Integrations: the incoming webhooks, with their URL and secret.
const integrationsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		integrations { id type secret webhookUrl created }
	}
}`

const createIntegrationMutation = `mutation($slug: String!, $type: String!) { createIntegration(project: $slug, type: $type) { id } }`

const deleteIntegrationMutation = `mutation($slug: String!, $key: Int!) { deleteIntegration(project: $slug, id: $key) }`

// Subprojects: the children nested under the project, by alias.
const subprojectsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		subprojects(first: 100) { nodes { alias child { slug name urls { home documentation } } } }
	}
}`

const createSubprojectMutation = `mutation($slug: String!, $input: CreateSubprojectInput!) {
	createSubproject(project: $slug, input: $input) { alias }
}`

const deleteSubprojectMutation = `mutation($slug: String!, $key: String!) { deleteSubproject(project: $slug, alias: $key) }`

// Translations: projects linked to this one as its translations
// (setTranslationOf; unlinking sets main to null).
const translationsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		translations(first: 100) { nodes { slug name language { code name } urls { home } } }
	}
}`

const addTranslationMutation = `mutation($slug: String!, $translation: String!) {
	setTranslationOf(slug: $translation, main: $slug) { slug }
}`

const removeTranslationMutation = `mutation($key: String!) { setTranslationOf(slug: $key, main: null) { slug } }`

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
	createApiToken(input: { name: $name }) { key apiToken { id prefix name created } errors { path message code } }
}`

const revokeTokenMutation = `mutation($id: ID!) { revokeApiToken(input: { id: $id }) { deletedId errors { path message code } } }`

// adminMutation writes the admin settings (superusers).
const adminMutation = `mutation($slug: String!, $input: ProjectAdminInput!) { setProjectAdminFields(slug: $slug, input: $input) { slug } }`
