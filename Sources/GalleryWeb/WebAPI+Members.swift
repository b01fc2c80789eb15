import Foundation
import GalleryNode
import GalleryWire

/// Membership over the web (http-api.md, "Members"): the page's Invite and Members, what
/// `gallery -C DIR invite`, `members` and `revoke` do.
extension WebAPI {
    /// `GET /api/members`: `{"members": [{"nodeID", "name", "added", "addedBy", "revoked"?,
    /// "revokedBy"?, "isSelf"}]}`, times in Unix milliseconds.
    func members() throws -> WebResponse {
        let listing = try Self.membership { () throws(MembershipFailure) in try node.members() }
        return .json(["members": .array(listing.map(Self.json))])
    }

    /// `POST /api/invite` `{"expires"?: SECONDS}` (`ControlCommand.invitationSeconds`, default 600): `{"code", "expires"}`;
    /// `POST /api/members/revoke` `{"node": NODE-ID or NAME}`: `{"revoked": MEMBER, "message"}`.
    func membershipChange(_ request: any WebRequestBody) throws -> WebResponse {
        switch request {
        case let body as InviteBody:
            let code = try Self.membership { () throws(MembershipFailure) in try node.invite(seconds: body.expires) }
            return .json(["code": .string(code.text), "expires": WebJSON(UInt64(code.expires) * 1_000)], status: 201)
        case let body as RevokeBody:
            let member = try Self.membership { () throws(MembershipFailure) in try node.revoke(body.node) }
            return .json(["revoked": Self.json(member), "message": .string("Revoked \(member.name)")])
        default:
            throw WebRefusal(500, "internal", "not a membership route")
        }
    }

    /// Runs `body`, its refusal as the application layer's (`ActionError.membership`: 404
    /// `unknownMember`, 503 `storage`, else 409 `refused`, as `WebRefusal.statusAndCode` maps it).
    private static func membership<T>(_ body: () throws(MembershipFailure) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ActionError.membership(error)
        }
    }

    private static func json(_ member: MemberListing) -> WebJSON {
        ["nodeID": .string(member.nodeID), "name": .string(member.name), "added": WebJSON(member.added), "addedBy": .string(member.addedBy),
         "revoked": WebJSON(member.revoked), "revokedBy": WebJSON(member.revokedBy), "isSelf": .bool(member.isSelf)]
    }
}
