/// One member as `gallery members` shows it.
package struct MemberListing: Hashable, Sendable, Codable {
    package init(nodeID: String, name: String, added: UInt64, addedBy: String, revoked: UInt64?, revokedBy: String?, isSelf: Bool) {
        self.nodeID = nodeID
        self.name = name
        self.added = added
        self.addedBy = addedBy
        self.revoked = revoked
        self.revokedBy = revokedBy
        self.isSelf = isSelf
    }

    package var nodeID: String
    package var name: String
    /// When it was added, in milliseconds since 1970.
    package var added: UInt64
    /// "itself" (a founder or a node that joined with a copied secret), or "name [node ID]".
    package var addedBy: String
    /// When it was revoked, if it was.
    package var revoked: UInt64?
    package var revokedBy: String?
    /// Whether it is the node answering.
    package var isSelf: Bool
}
