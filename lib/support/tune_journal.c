/*
 * tune_journal.c --- the journal superblock part of e4tune and of
 * e4debug's jsb: list it (-l,
 * --json) and apply -O / -E edits through libe4.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <et/com_err.h>
#include <e2p/e2p.h>
#include <uuid/uuid.h>

#include "e4.h"
#include "open.h"
#include "tune.h"

int e4s_tune_journal_wants_write(const struct e4s_req *o)
{
	return o->features || o->clear_journal_errno ||
		o->num_fc_blks != (uint32_t)-1 || o->journal_uuid;
}

/* Space-separated feature names of @jsb into @buf. */
static void feature_names(const struct e4_jsb *jsb, char *buf, size_t len)
{
	uint32_t masks[3] = { jsb->feature_compat, jsb->feature_incompat,
			      jsb->feature_ro_compat };
	size_t used = 0;
	int i, bit;

	buf[0] = 0;
	for (i = 0; i < 3; i++)
		for (bit = 0; bit < 32; bit++) {
			if (!(masks[i] & (1U << bit)))
				continue;
			used += snprintf(buf + used, used < len ?
					 len - used : 0, "%s%s",
					 used ? " " : "",
					 e4_jrnl_feature2string(i, 1U << bit));
		}
	if (!used)
		snprintf(buf, len, "(none)");
}

static const char *csum_type_name(uint8_t t)
{
	switch (t) {
	case 0:
		return "none";
	case JBD2_CRC32_CHKSUM:
		return "crc32";
	case JBD2_MD5_CHKSUM:
		return "md5";
	case JBD2_SHA1_CHKSUM:
		return "sha1";
	case JBD2_CRC32C_CHKSUM:
		return "crc32c";
	default:
		return "unknown";
	}
}

/* The checksum method in force: v3/v2 crc32c, v1 crc32, or none. */
static const char *csum_method(const struct e4_jsb *s)
{
	if (s->feature_incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return "v3";
	if (s->feature_incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		return "v2";
	if (s->feature_compat & JBD2_FEATURE_COMPAT_CHECKSUM)
		return "v1";
	return "none";
}

void e4s_print_jsb_text(e4_journal_t j, ext2_filsys fs, int verifies)
{
	const struct e4_jsb *s = &j->jsb;
	char feats[512];
	uint32_t fc = e4_jsb_fc_blocks(j->sb);
	unsigned long long kb = (unsigned long long)s->blocksize / 1024 *
		s->maxlen;
	uint32_t i;

	feature_names(s, feats, sizeof(feats));
	if (j->file_kind == E4_JOURNAL_FILE_RAW)
		printf("Journal location:         raw journal file %s\n",
		       j->dev_name);
	else if (j->external)
		printf("Journal location:         external device %s\n",
		       j->dev_name);
	else
		printf("Journal location:         inode %u\n",
		       fs->super->s_journal_inum);
	printf("Journal superblock:       v%u (block type %u)\n",
	       s->blocktype == JBD2_SUPERBLOCK_V2 ? 2 : 1, s->blocktype);
	printf("Journal features:         %s\n", feats);
	if (kb < 8192)
		printf("Total journal size:       %lluk\n", kb);
	else
		printf("Total journal size:       %lluM\n", kb >> 10);
	printf("Journal block size:       %u\n", s->blocksize);
	printf("Total journal blocks:     %u\n", s->maxlen);
	printf("Max transaction length:   %u\n", s->maxlen - fc);
	printf("Fast commit length:       %u\n", fc);
	printf("Journal first block:      %u\n", s->first);
	printf("Journal sequence:         0x%08x\n", s->sequence);
	printf("Journal start:            %u\n", s->start);
	printf("Journal errno:            %d\n", s->errno_);
	printf("Journal checksum method:  %s\n", csum_method(s));
	if (s->feature_compat & JBD2_FEATURE_COMPAT_CHECKSUM)
		printf("Journal checksum type:    crc32\n");
	if (e4_jsb_has_csum_v2v3(j->sb)) {
		printf("Journal checksum type:    %s\n",
		       csum_type_name(s->checksum_type));
		printf("Journal checksum:         0x%08x (%s)\n", s->checksum,
		       verifies ? "verifies" : "DOES NOT VERIFY");
	}
	printf("Journal UUID:             %s\n", e2p_uuid2str((void *)s->uuid));
	printf("Journal number of users:  %u\n", s->nr_users);
	for (i = 0; i < s->nr_users && i < JBD2_JSB_MAX_USERS; i++)
		printf(i ? "                          %s\n" :
		       "Journal users:            %s\n",
		       e2p_uuid2str((void *)s->users[i]));
	if (s->nr_users > JBD2_JSB_MAX_USERS)
		printf("                          (s_nr_users %u exceeds %u)\n",
		       s->nr_users, JBD2_JSB_MAX_USERS);
	printf("Journal num_fc_blks:      %u\n", s->num_fc_blks);
	printf("Journal max_trans_data:   %u\n", s->max_trans_data);
	printf("Journal head:             %u\n", s->head);
	if (!fs)
		printf("Journal file:             %s (no file system open "
		       "with it)\n", j->file_kind == E4_JOURNAL_FILE_RAW ?
		       "a raw journal" : "an external journal device");
	else if (e4s_is_journal_dev(fs))
		printf("Journal device:           yes (no file system on it; "
		       "its users are listed above)\n");
	else
		printf("Needs recovery:           %s\n",
		       e4s_needs_recovery(fs) ? "yes" : "no");
}

void e4s_print_jsb_json(e4_journal_t j, ext2_filsys fs, int verifies,
			   struct e4s_json *js)
{
	const struct e4_jsb *s = &j->jsb;
	uint32_t masks[3] = { s->feature_compat, s->feature_incompat,
			      s->feature_ro_compat };
	uint32_t fc = e4_jsb_fc_blocks(j->sb);
	uint32_t i;
	int k, bit;

	e4s_json_obj_begin(js, "journal");
	e4s_json_str(js, "location", j->external ? "external" : "inode");
	if (j->external)
		e4s_json_str(js, "external_device", j->dev_name);
	else
		e4s_json_u64(js, "ino", fs->super->s_journal_inum);
	e4s_json_u64(js, "blocktype", s->blocktype);
	e4s_json_u64(js, "blocksize", s->blocksize);
	e4s_json_u64(js, "maxlen", s->maxlen);
	e4s_json_u64(js, "first", s->first);
	e4s_json_u64(js, "sequence", s->sequence);
	e4s_json_u64(js, "start", s->start);
	e4s_json_i64(js, "errno", s->errno_);
	e4s_json_u64(js, "feature_compat", s->feature_compat);
	e4s_json_u64(js, "feature_incompat", s->feature_incompat);
	e4s_json_u64(js, "feature_ro_compat", s->feature_ro_compat);
	e4s_json_arr_begin(js, "features");
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++)
			if (masks[k] & (1U << bit))
				e4s_json_str(js, NULL,
					    e4_jrnl_feature2string(k,
								   1U << bit));
	e4s_json_arr_end(js);
	e4s_json_str(js, "checksum_method", csum_method(s));
	e4s_json_u64(js, "checksum_type", s->checksum_type);
	e4s_json_str(js, "checksum_type_name",
		    csum_type_name(s->checksum_type));
	e4s_json_u64(js, "checksum", s->checksum);
	e4s_json_bool(js, "checksum_verifies", verifies);
	e4s_json_str(js, "uuid", e2p_uuid2str((void *)s->uuid));
	e4s_json_u64(js, "nr_users", s->nr_users);
	e4s_json_arr_begin(js, "users");
	/* As the text: at most JBD2_JSB_MAX_USERS entries, null for a null UUID
	 * (the text's "<none>"). */
	for (i = 0; i < s->nr_users && i < JBD2_JSB_MAX_USERS; i++)
		if (uuid_is_null(s->users[i]))
			e4s_json_null(js, NULL);
		else
			e4s_json_str(js, NULL,
				    e2p_uuid2str((void *)s->users[i]));
	e4s_json_arr_end(js);
	e4s_json_bool(js, "nr_users_exceeds_max", s->nr_users > JBD2_JSB_MAX_USERS);
	e4s_json_u64(js, "num_fc_blks", s->num_fc_blks);
	e4s_json_u64(js, "fast_commit_blocks", fc);
	e4s_json_u64(js, "max_transaction_length", s->maxlen - fc);
	e4s_json_u64(js, "max_transaction", s->max_transaction);
	e4s_json_u64(js, "max_trans_data", s->max_trans_data);
	e4s_json_u64(js, "head", s->head);
	e4s_json_bool(js, "journal_device", e4s_is_journal_dev(fs));
	e4s_json_obj_end(js);
	if (e4s_is_journal_dev(fs))
		e4s_json_null(js, "needs_recovery");
	else
		e4s_json_bool(js, "needs_recovery", e4s_needs_recovery(fs));
}

/* 1 if @retval says a field of a journal superblock fails validation:
 * one the kernel refuses (e4_jsb_refused()) but a journal superblock
 * (the magic right, the block whole). */
static int jsb_field_error(errcode_t retval)
{
	return e4_jsb_refused(retval) && retval != E4_ERR_JSB_MAGIC &&
		retval != E4_ERR_JSB_TOO_SHORT;
}

int e4s_tune_journal_list(const char *prog, const struct e4s_req *o,
			ext2_filsys fs, struct e4s_json *js)
{
	e4_journal_t j = NULL;
	errcode_t retval;
	int verifies;

	retval = e4s_open_journal(prog, fs, o->journal_dev, 0, &j);
	if (retval == E4_ERR_NO_JOURNAL && !o->journal_dev) {
		/* Not an error: the rest of the listing still holds. */
		if (js) {
			e4s_json_null(js, "journal");
			e4s_json_bool(js, "needs_recovery",
				      e4s_needs_recovery(fs));
		} else {
			printf("Journal:                  no journal "
			       "(has_journal not set)\n");
		}
		return 0;
	}
	if (retval) {
		com_err(prog, retval, "while reading journal superblock of %s",
			o->journal_dev ? o->journal_dev : o->device);
		/* A journal superblock (its magic right) whose fields fail
		 * validation is listed after the error line (exit 1), as
		 * dumpe2fs does; anything else only with -f. */
		if (!j || (!o->force && !jsb_field_error(retval))) {
			e4_journal_close(j);
			return 1;
		}
	}
	verifies = e4_jsb_csum_ok(j->sb);
	if (js)
		e4s_print_jsb_json(j, fs, verifies, js);
	else
		e4s_print_jsb_text(j, fs, verifies);
	e4_journal_close(j);
	return retval ? 1 : 0;
}

/* Print what differs between the old and new superblocks. */
static void print_changes(const char *prog, const void *oldb,
			  const void *newb, int dry_run)
{
	struct e4_jsb a, b;
	char fa[512], fb[512];
	const char *verb = dry_run ? "would change" : "changed";

	e4_jsb_decode(oldb, &a);
	e4_jsb_decode(newb, &b);
	feature_names(&a, fa, sizeof(fa));
	feature_names(&b, fb, sizeof(fb));
	if (strcmp(fa, fb))
		printf("%s: %s journal features: %s -> %s\n", prog, verb,
		       fa, fb);
	if (a.checksum_type != b.checksum_type)
		printf("%s: %s journal checksum type: %s -> %s\n", prog, verb,
		       csum_type_name(a.checksum_type),
		       csum_type_name(b.checksum_type));
	if (a.num_fc_blks != b.num_fc_blks)
		printf("%s: %s journal s_num_fc_blks: %u -> %u\n", prog, verb,
		       a.num_fc_blks, b.num_fc_blks);
	if (a.errno_ != b.errno_)
		printf("%s: %s journal errno: %d -> %d\n", prog, verb,
		       a.errno_, b.errno_);
	if (memcmp(a.uuid, b.uuid, 16)) {
		printf("%s: %s journal UUID: %s", prog, verb,
		       e2p_uuid2str(a.uuid));
		printf(" -> %s\n", e2p_uuid2str(b.uuid));
	}
	if (!memcmp(oldb, newb, JBD2_JSB_SIZE))
		printf("%s: journal superblock unchanged\n", prog);
}

/* What the kernel does with a log (e4_log_outcome()), in words. */
static void outcome_words(const struct e4_log_outcome *r, char *buf,
			  size_t len)
{
	int n;

	if (r->fail) {
		snprintf(buf, len, "its recovery fails at tid %u (%s): "
			 "nothing replayed, no mount", r->end_tid,
			 error_message(r->fail));
		return;
	}
	if (r->ncommitted)
		n = snprintf(buf, len, "it replays tids %u-%u (%zu "
			     "transaction%s, %llu tags)", r->start_tid,
			     r->end_tid - 1, r->ncommitted,
			     r->ncommitted == 1 ? "" : "s",
			     (unsigned long long)r->ntags);
	else
		n = snprintf(buf, len, "it replays nothing");
	if (n < 0 || (size_t)n >= len)
		return;
	if (r->refused.err)
		snprintf(buf + n, len - n, ", then refuses to mount (%s, tid "
			 "%u)", error_message(r->refused.err), r->refused.tid);
	else if (r->corrupt)
		snprintf(buf + n, len - n, ", the rest of the log discarded "
			 "as corrupt");
}

/*
 * -f on a log that needs recovery: an edit of the journal superblock must
 * not change what the kernel's recovery makes of that log (which
 * transactions it replays, whether it refuses the mount) unless -f is
 * given twice (tune2fs's double force).  0 to go on, 1 refused (one
 * line), after the line that says what changes when forced twice.
 */
static int check_reinterpret(const char *prog, const struct e4s_req *o,
			     e4_journal_t j, const unsigned char *newsb,
			     const char *where)
{
	struct e4_log_outcome before, after;
	char a[256], b[256];
	errcode_t retval;

	if (!j->jsb.start || !memcmp(j->sb, newsb, JBD2_JSB_SIZE))
		return 0;
	retval = e4_log_outcome(j, NULL, &before);
	if (!retval)
		retval = e4_log_outcome(j, newsb, &after);
	if (retval) {
		com_err(prog, retval, "while scanning the log of %s under "
			"the edit", where);
		return 1;
	}
	if (e4_log_outcome_same(&before, &after))
		return 0;
	outcome_words(&before, b, sizeof(b));
	outcome_words(&after, a, sizeof(a));
	if (o->force >= 2) {
		fprintf(stderr, "%s: -f -f: this edit changes what the kernel "
			"makes of the log of %s: before, %s; after, %s\n",
			prog, where, b, a);
		return 0;
	}
	fprintf(stderr, "%s: the log of %s needs recovery and this edit "
		"changes what the kernel makes of it: now %s; after the edit "
		"%s; replay it first (e4replay %s), or give -f twice to edit "
		"anyway\n", prog, where, b, a, o->device);
	return 1;
}

int e4s_tune_journal_write(const char *prog, const struct e4s_req *o,
			 ext2_filsys fs)
{
	const char *where = o->journal_dev ? o->journal_dev : o->device;
	unsigned char newsb[JBD2_JSB_SIZE], oldsb[JBD2_JSB_SIZE];
	e4_journal_t j = NULL;
	char bad[128];
	int flags = 0, empty_needed = 0;
	errcode_t retval;
	uuid_t uu;

	if (!o->dry_run) {
		flags = E4_JOURNAL_RW;
		if (o->journal_dev && o->undo_file) {
			if (e4s_setup_undo(prog, o->undo_file))
				return 1;
			flags |= E4_JOURNAL_UNDO;
		}
	}
	retval = e4s_open_journal(prog, fs, o->journal_dev, flags, &j);
	if (retval) {
		com_err(prog, retval, "while reading journal superblock of %s",
			where);
		e4_journal_close(j);
		return 1;
	}
	memcpy(newsb, j->sb, JBD2_JSB_SIZE);
	flags = 0;
	if (ext2fs_has_feature_64bit(fs->super))
		flags |= E4_FEAT_FS_64BIT;
	if (ext2fs_has_feature_fast_commit(fs->super))
		flags |= E4_FEAT_FS_FAST_COMMIT;
	if (o->force)
		flags |= E4_FEAT_FORCE;
	if (o->features || o->num_fc_blks != (uint32_t)-1) {
		retval = e4_jsb_edit_features(newsb, o->features,
					      o->num_fc_blks, flags, bad,
					      sizeof(bad));
		/* A bad name or value is reported first; a refusal that
		 * depends on the log's state yields to needs_recovery. */
		if (retval == E4_ERR_JOURNAL_NOT_EMPTY &&
		    e4s_needs_recovery(fs) && !o->force) {
			empty_needed = 1;
			goto needs_recovery;
		}
		if (retval) {
			if (bad[0])
				com_err(prog, retval, "'%s' while setting "
					"journal features of %s", bad, where);
			else
				com_err(prog, retval, "while setting journal "
					"features of %s", where);
			goto out;
		}
	}
	if (o->clear_journal_errno)
		e4_put_be32(newsb + JBD2_JSB_ERRNO, 0);
	if (o->journal_uuid) {
		if (!strcmp(o->journal_uuid, "random")) {
			uuid_generate(uu);
		} else if (!strcmp(o->journal_uuid, "time")) {
			uuid_generate_time(uu);
		} else if (uuid_parse(o->journal_uuid, uu)) {
			retval = EXT2_ET_INVALID_ARGUMENT;
			com_err(prog, 0, "'%s' is not a UUID, while setting "
				"the journal UUID of %s", o->journal_uuid,
				where);
			goto out;
		}
	}
	/* Option values are validated above, the fs state from here on. */
	if (o->journal_uuid && memcmp(newsb + JBD2_JSB_UUID, uu, 16) &&
	    e4_be32(newsb + JBD2_JSB_START))
		empty_needed = 1;
	if (e4s_needs_recovery(fs) && !o->force) {
needs_recovery:
		retval = E4_ERR_NEEDS_RECOVERY;
		if (empty_needed)	/* -f would meet the refusal below */
			fprintf(stderr, "%s: the journal of %s needs recovery "
				"and this change needs an empty log: replay it "
				"first (e4replay %s); -f does not help\n", prog,
				o->device, o->device);
		else
			com_err(prog, retval, "on %s", o->device);
		goto out;
	}
	if (o->journal_uuid) {
		/* The UUID seeds every v2/v3 checksum of the log. */
		if (memcmp(newsb + JBD2_JSB_UUID, uu, 16) &&
		    e4_be32(newsb + JBD2_JSB_START)) {
			retval = E4_ERR_JOURNAL_NOT_EMPTY;
			com_err(prog, retval, "while changing the journal UUID "
				"of %s", where);
			goto out;
		}
		memcpy(newsb + JBD2_JSB_UUID, uu, 16);
	}
	e4_jsb_set_csum(newsb);
	if (check_reinterpret(prog, o, j, newsb, where)) {
		retval = E4_ERR_NEEDS_RECOVERY;
		goto out;
	}
	/* A no-op edit writes nothing (so close does not touch the fs
	 * superblock's s_kbytes_written either). */
	if (o->dry_run || !memcmp(j->sb, newsb, JBD2_JSB_SIZE)) {
		print_changes(prog, j->sb, newsb, o->dry_run);
		goto out;
	}
	memcpy(oldsb, j->sb, JBD2_JSB_SIZE);
	memcpy(j->sb, newsb, JBD2_JSB_SIZE);
	retval = e4_journal_write_sb(j);
	if (retval)	/* "changed" only once it is written */
		com_err(prog, retval, "while writing journal superblock of %s",
			where);
	else
		print_changes(prog, oldsb, newsb, 0);
out:
	e4_journal_close(j);
	return retval ? 1 : 0;
}

int e4s_tune_list(const char *prog, const struct e4s_req *r, ext2_filsys fs,
		  const e4s_tune_lister *list, int n)
{
	struct e4s_json js;
	int i, rc = 0;

	e4s_json_init(&js, stdout);
	if (r->json)
		e4s_json_obj_begin(&js, NULL);
	for (i = 0; i < n && !rc; i++)
		rc = list[i](prog, r, fs, r->json ? &js : NULL);
	if (r->json) {
		e4s_json_obj_end(&js);
		e4s_json_finish(&js);
	}
	return rc;
}
