package access

import "docsd/store"

// Who reads which audit entries. An entry is visible when any row
// applies; readers of a project see nothing of its log.

// auditOwnActions are the actions every user reads of their own entries.
var auditOwnActions = []string{
	store.AuditAuthentication, store.AuditAuthenticationFailure, store.AuditLogOut,
	store.AuditInvitationSent, store.AuditInvitationRevoked, store.AuditInvitationAccepted, store.AuditInvitationDeclined,
	store.AuditTokenCreated, store.AuditTokenRevoked,
}

// auditProjectActions are the actions admins of a project read of its
// entries.
var auditProjectActions = []string{
	store.AuditPageview, store.AuditDownload, store.AuditAuthentication, store.AuditAuthenticationFailure,
	store.AuditInvitationSent, store.AuditInvitationRevoked, store.AuditInvitationAccepted,
	store.AuditMaintainerAdded, store.AuditMaintainerRemoved,
	store.AuditSharingCreated, store.AuditSharingChanged, store.AuditSharingDeleted,
	store.AuditSSHKeyCreated, store.AuditSSHKeyDeleted, store.AuditKnownHostsChanged, store.AuditCredentialsChanged,
	store.AuditProjectOrgChanged, store.AuditTeamProjectAdded, store.AuditTeamProjectRemoved,
}

// auditOwnerHidden are the actions owners of an organization do not read
// of its entries.
var auditOwnerHidden = []string{store.AuditInvitationDeclined, store.AuditTokenCreated, store.AuditTokenRevoked}

// AuditVisibility is the store's filter of the audit entries v reads:
// superusers and the system read all; a user reads their own sign-in,
// invitation and API key events, the project events of the projects they
// are an admin of, and every event but declined invitations and API keys
// of the organizations ownedOrganizations (those they own). Anonymous
// viewers read none.
func AuditVisibility(v Viewer, ownedOrganizations []int64) store.AuditVisibility {
	if v.SeesAll() {
		return store.AuditVisibility{All: true}
	}
	if v.User == nil {
		return store.AuditVisibility{}
	}
	return store.AuditVisibility{
		UserID: v.User.ID, UserActions: auditOwnActions, ProjectActions: auditProjectActions,
		OrganizationIDs: ownedOrganizations, OrganizationHidden: auditOwnerHidden,
	}
}
