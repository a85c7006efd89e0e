/*
 * gres.h: Slurm's generic resource strings -> the library's form,
 * "name[:type]:count" comma-separated (mauisched.h, ABI 1.3).
 *
 * What Slurm hands over (the same at 22.05 and 24.11 unless said):
 *  - a node's Gres (node_info_t.gres; slurmctld's node_ptr->gres, else its
 *    config_ptr->gres): "gpu:4", "gpu:a100:4(S:0-1)", "gpu:a100:2,gpu:v100:2",
 *    "bw:lustre:no_consume:4G" (slurmctld's node string: a count with a
 *    K/M/G/T/P suffix, a socket suffix, the no_consume flag);
 *  - a job's tres_per_node, tres_per_task, tres_per_job, tres_per_socket:
 *    items prefixed "gres:" at 22.05 ("gres:gpu:2", from --gres and
 *    --gpus-per-node alike) and "gres/" at 24.11 ("gres/gpu:2"); 24.11's
 *    tres_per_task may hold other TRES and an '=' count
 *    ("cpu=2,gres/gpu:a100=1"). A bare "gpu:2" (older clients) is read too.
 */
#ifndef MAUI_GRES_H
#define MAUI_GRES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Converts `in` (a node's Gres when `node`, else a job's tres_per_* list)
 * into the library's form, in the arena (*out NULL when no generic
 * resource is left). Left out: other TRES (cpu=, mem=, license/...), zero
 * counts, and resources named in `skip` (",name,name": the no_consume
 * ones, which Slurm does not count; NULL: none), and from a node the
 * no_consume ones themselves. A name given twice is summed; a count over
 * 4294967295 is cut to it (the library's limit). Returns 0, or -1 with
 * the reason in `err` (the item named).
 */
int gres_to_abi(const char *in, bool node, const char *skip, char **out,
		char *err, size_t errlen);

/*
 * Appends ",name" to *skip (malloc()ed, grown; free() it) for each
 * no_consume resource of node Gres `in` not listed yet.
 */
void gres_no_consume(const char *in, char **skip);

/* Whether a job's TRES list asks for any generic resource (a non-empty
 * tres_per_socket is then refused: the library knows no sockets). */
bool gres_any(const char *in);

#endif /* MAUI_GRES_H */
