/// The name of a control command: the `command` key of a `control_request`, and the word typed
/// after `gallery -C DIR`.
package enum ControlCommandName: String, Codable, Hashable, Sendable, CaseIterable {
    case galleries
    case newGallery = "new-gallery"
    case list
    case add
    case move
    case delete
    case update
    case export
    case peers
    case status
    case connect
    case disconnect
    case forget
    case watch
    case drag
    case cancel
    case listTrash = "list-trash"
    case restore
    case emptyTrash = "empty-trash"
    case renameGallery = "rename-gallery"
    case deleteGallery = "delete-gallery"
    case undo
    case redo
    case invite
    case members
    case revoke
}
