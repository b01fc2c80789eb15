import Foundation
import GalleryCrypto
import GalleryNode
import GalleryWire

extension GalleryServer {
    /// Why `--join` cannot be used here.
    enum JoinRefusal: Error, LocalizedError {
        case alreadyMember(String)
        case withSecretFile

        var errorDescription: String? {
            switch self {
            case .alreadyMember(let path): "\(path) exists: this directory belongs to a space already (--join is for a new node)"
            case .withSecretFile: "--join and --secret-file exclude each other"
            }
        }
    }

    /// Joins the space of `code` (protocol.md, "Joining"): asks the inviter, then stores the
    /// space's keys and member records (mode 0600) before the node starts like any member.
    static func join(_ code: InvitationCode, files: MembershipFiles, staticKey: X25519.PrivateKey,
                     name: String, secretFile: URL?) throws -> JoinClient.Grant {
        guard secretFile == nil else { throw JoinRefusal.withSecretFile }
        guard !FileManager.default.fileExists(atPath: files.secretFile.path) else { throw JoinRefusal.alreadyMember(files.secretFile.path) }
        let grant = try JoinClient.join(code: code, staticKey: staticKey, name: name)
        try files.save(records: grant.records)
        try files.save(keys: grant.keys)
        return grant
    }
}
