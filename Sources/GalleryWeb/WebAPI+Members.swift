import Foundation
import GalleryNode
import GalleryWire

/// Membership over the web (http-api.md, "Members"): the page's Invite and Members, what
/// `gallery -C DIR invite`, `members` and `revoke` do.
extension WebAPI {
    /// `GET /api/members`: `{"members": [{"nodeID", "name", "added", "addedBy", "revoked"?,
    /// "revokedBy"?, "isSelf"}]}`, times in Unix milliseconds.
    func members() throws -> WebResponse {
        let listing = try Self.membership { () throws(SyncNode.MembershipFailure) in try node.members() }
        return .json(["members": listing.map(Self.json)])
    }

    /// `POST /api/invite` `{"expires"?: SECONDS}` (1 to 604,800, default 600): `{"code", "expires"}`;
    /// `POST /api/members/revoke` `{"node": NODE-ID or NAME}`: `{"revoked": MEMBER, "message"}`.
    func membershipChange(_ change: WebRoute.Change, _ json: [String: Any]) throws -> WebResponse {
        switch change {
        case .invite:
            var seconds: UInt64 = 600
            if let value = json["expires"], !(value is NSNull) {
                guard let number = value as? NSNumber, let whole = UInt64(exactly: number.doubleValue), (1...604_800).contains(whole) else {
                    throw WebRefusal(400, "badExpiry", "expires is a number of seconds from 1 to 604800")
                }
                seconds = whole
            }
            let code = try Self.membership { () throws(SyncNode.MembershipFailure) in try node.invite(seconds: seconds) }
            return .json(["code": code.text, "expires": UInt64(code.expires) * 1_000], status: 201)
        case .revoke:
            guard let target = json["node"] as? String, !target.isEmpty else {
                throw WebRefusal(400, "badNode", "node is a member's node ID or name")
            }
            let member = try Self.membership { () throws(SyncNode.MembershipFailure) in try node.revoke(target) }
            return .json(["revoked": Self.json(member), "message": "Revoked \(member.name)"])
        default:
            throw WebRefusal(500, "internal", "not a membership route")
        }
    }

    /// Runs `body`, its refusals as the API's: 404 for an unknown member, 409 for the rest.
    private static func membership<T>(_ body: () throws(SyncNode.MembershipFailure) -> T) throws -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .unknownMember: throw WebRefusal(404, "unknownMember", error.localizedDescription)
            case .storage: throw WebRefusal(500, "storage", error.localizedDescription)
            default: throw WebRefusal(409, "refused", error.localizedDescription)
            }
        }
    }

    private static func json(_ member: MemberListing) -> [String: Any] {
        ["nodeID": member.nodeID, "name": member.name, "added": member.added, "addedBy": member.addedBy,
         "revoked": member.revoked.map { $0 as Any } ?? NSNull(), "revokedBy": member.revokedBy.map { $0 as Any } ?? NSNull(),
         "isSelf": member.isSelf]
    }
}
