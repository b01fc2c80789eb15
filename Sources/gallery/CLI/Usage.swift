/// The help texts of `gallery` and its commands.
enum Usage {
    static let overview = """
        usage: gallery <command> [arguments]
               gallery -C DIR <node command> [arguments]

        commands:
          serve DIR       run a node on DIR until SIGINT or SIGTERM
          simulate FILE   replay a schedule of ops on in-memory replicas and print the outcome as JSON
          help [COMMAND]  show this help, or a command's

        node commands (carried out by the node serving DIR, over its socket DIR/control.sock):
          galleries                                   list the galleries
          new-gallery NAME                            create a gallery
          list [GALLERY] [--json]                     the items of a gallery, or of all
          list --trash [--json]                       the Trash: items with the gallery they left
          add FILE|URL... [--to G] [--at I] [--title T] [--aspect R]
                                                      add images: files are stored (PNG, JPEG, GIF), URLs kept
                                                      by reference (default: the node's gallery, at the end)
          export ITEM FILE                            write an item's bytes to FILE (hash checked)
          move ITEM... --at INDEX [--to GALLERY] [--stdin]
                                                      move items as one run, all or none (ITEM:
                                                      COUNTER@REPLICA or GALLERY:INDEX; see help move)
          delete ITEM... [--stdin] (or trash)         move items to the Trash, all or none
          restore ITEM... [--stdin]                   take items out of the Trash, back where they were
          empty-trash [ITEM...]                       delete items of the Trash (or all of it) for good
          rename-gallery NAME NEW-NAME                rename a gallery
          delete-gallery NAME                         delete a gallery: its items go to the Trash
          undo                                        take back this node's last command-line action
          redo                                        take back the last undo
          update ITEM... --title T | --aspect R [--stdin]
                                                      change items' title or aspect ratio, all or none
          peers [--json]                              the known peers, connected or not: node ID, addresses,
                                                      link in the relay tree, next retry
          connect HOST:PORT                           add a peer to the address book and stay connected
          disconnect PEER                             drop the connections to the peer of that name (both
                                                      sides redial, as after a network fault)
          forget PEER|HOST:PORT                       remove a peer from the address book: stop dialing it
          invite [--expires SECONDS]                  print a single-use code for serve --join (default 600 s)
          members [--json]                            the space's members: node ID, name, added, revoked
          revoke NODE-ID|NAME                         remove a member: a new space key, its connections
                                                      and later ops refused
          drag ITEM... --to GALLERY [--at INDEX] [--copy | --move] [--wait] [--timeout SECONDS]
                                                      drop items into GALLERY on this node (see help drag)
          cancel TRANSFER...                          cancel transfers: their placeholders are deleted
          status [--json]                             version vector, ops, peers, sync state and transfers
          watch [GALLERY] [--json]                    show every change live (--json: one event per line)
          open [--print-only]                         print (and open in a browser) the node's web page link

        move, delete and update are one request and one batch however many items they name (at most
        10000); --stdin adds one ITEM per line of standard input.

        exit codes: 0 success, 1 the operation failed, 64 usage error, 69 node not running or
        unreachable, 77 authentication refused
        """

    static let simulate = """
        usage: gallery simulate FILE

        Replays the schedule in FILE (or standard input for -) on named in-memory replicas and prints
        {"converged": BOOL, "replicas": {NAME: {GALLERY: [{"label", "title", "state"}, ...]}}}.
        The file format is described in README.md ("gallery simulate").
        """

    static let serve = """
        usage: gallery serve DIR [--name NAME] [--listen HOST:PORT] [--peer HOST:PORT]... [--secret-file FILE]
                             [--http [HOST:PORT]] [--announce HOST:PORT|none]...
                             [--keep all|thumbnails] [--cache-budget BYTES] [--join CODE]

        Runs a node on DIR in the foreground until SIGINT or SIGTERM and prints "listening on HOST:PORT"
        when it is ready. DIR holds the op log (replayed at start; a torn tail is cut and reported), the
        space's secret (created, mode 0600, unless --secret-file gives one to join a space), the replica
        ID, node.json, peers (the address book) and control.sock (the socket of gallery -C DIR, mode
        0600, for this user only). The node creates the gallery named after it (--name, default: DIR's
        name), and redials every peer it has ever been connected to whenever it is not connected.
          --join CODE          join a space with a code from `gallery -C DIR invite` (a new DIR only;
                               no secret file, no --peer: the inviter sends the space's key)
          --listen HOST:PORT   where to accept peers (default: the port of the last run when it is
                               free, else 127.0.0.1:0, an ephemeral port)
          --peer HOST:PORT     a peer to stay connected to (repeatable; added to the address book)
          --announce HOST:PORT what to tell peers this node listens at (repeatable; default: the
                               address it is bound to), for a port forward or a tunnel; `none`: tell
                               nothing (peers then reach it only at addresses they were given)
          --http [HOST:PORT]   serve the gallery as a web page (default 127.0.0.1:0; another address only
                               when named) and print "web: http://HOST:PORT/?token=TOKEN", the link that
                               signs a browser in (the token is in DIR/http-token, mode 0600)
          --keep all|thumbnails  which originals to hold: all, fetched as soon as an item names them
                               (a backup); or thumbnails of every picture and the originals read (the
                               viewer, export) as a cache (the default)
          --cache-budget BYTES the most bytes of originals fetched on demand kept (with K, M or G:
                               KiB, MiB, GiB); the least recently read go first, never one that no
                               connected peer holds (default: no limit)
        """

    static let open = """
        usage: gallery -C DIR open [--print-only]

        Prints the link to the web page of the node serving DIR (started with --http) and opens it
        with xdg-open or open when there is one, except with --print-only, under CI=true, or with
        GALLERY_NO_BROWSER=1 in the environment.
        """

    static let drag = """
        usage: gallery -C DIR drag ITEM... --to GALLERY [--at INDEX] [--copy | --move] [--wait] [--timeout SECONDS]

        Drops items into GALLERY; the node serving DIR performs the drop. ITEM is COUNTER@REPLICA,
        GALLERY:INDEX, or a gallery's name for all its items. The items land as one run in the order
        given, the first at INDEX (no --at: appended at the end).
        When this node holds every item's bytes the drop is immediate: --move moves the items (INDEX
        counts the gallery without them), --copy (the default) inserts copies. Otherwise a placeholder
        per item appears at once; the bytes are fetched from a peer that has them and each placeholder
        is committed where it stands then, or deleted on failure, cancel or timeout. --move deletes a
        source only after its copy is committed.
        Prints one line per item: SOURCE -> GALLERY:INDEX ACTION ITEM transfer TRANSFER (- when none).
          --wait              wait until every transfer ends and print its outcome; exit 1 unless all
                              were committed
          --timeout SECONDS   delete a placeholder whose bytes have not arrived by then (default 300)
        """

    /// The usage of `gallery TOPIC` or `gallery -C DIR TOPIC`, nil for an unknown topic.
    static func of(_ topic: String) -> String? {
        if let command = TopLevelCommand(rawValue: topic) { return command.usage }
        if topic == OpenCommand.name { return Usage.open }
        return NodeCommand.subcommand(named: topic)?.usage
    }
}
