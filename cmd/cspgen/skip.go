package main

// skip lists functions with an MPI_Comm parameter that must get no wrapper
// at all (MPI's own definition is used as is), with the reason. Extend it
// when a new MPICH adds a function that must not be mapped.
var skip = map[string]string{}

// mustHandWrite lists the functions where the runtime must act. Each must
// be defined in a hand-written .c file of the interposer; the generator
// fails otherwise, because a generated pass-through would bypass offload.
var mustHandWrite = []string{
	"MPI_Init", "MPI_Init_thread", "MPI_Finalize",
	// point-to-point, with their large-count variants
	"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv",
	"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv",
	"MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Probe", "MPI_Iprobe",
	"MPI_Isend_c", "MPI_Issend_c", "MPI_Ibsend_c", "MPI_Irsend_c", "MPI_Irecv_c",
	"MPI_Send_c", "MPI_Ssend_c", "MPI_Bsend_c", "MPI_Rsend_c", "MPI_Recv_c",
	"MPI_Sendrecv_c", "MPI_Sendrecv_replace_c",
	// completion
	"MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Testall", "MPI_Waitany", "MPI_Testany",
	"MPI_Waitsome", "MPI_Testsome", "MPI_Request_free", "MPI_Cancel", "MPI_Request_get_status",
	// communicator constructors and hints
	"MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_idup", "MPI_Comm_idup_with_info",
	"MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create", "MPI_Comm_create_group",
	"MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create", "MPI_Dist_graph_create",
	"MPI_Dist_graph_create_adjacent", "MPI_Intercomm_create", "MPI_Intercomm_merge",
	"MPI_Comm_set_info", "MPI_Comm_get_info", "MPI_Comm_free",
	// attributes, memory, windows
	"MPI_Comm_get_attr", "MPI_Attr_get", "MPI_Alloc_mem", "MPI_Free_mem",
	"MPI_Win_allocate_shared", "MPI_Win_allocate_shared_c", "MPI_Win_free",
	"MPI_Win_allocate", "MPI_Win_allocate_c", // redirected windows (rma.c)
	// MPI 4.0 point-to-point that must take the offload path, and the runtime's error strings
	"MPI_Isendrecv", "MPI_Isendrecv_replace", "MPI_Isendrecv_c", "MPI_Isendrecv_replace_c", "MPI_Error_string",
	"MPI_Comm_disconnect", "MPI_Comm_create_from_group", "MPI_Intercomm_create_from_groups",
	"MPI_Comm_set_errhandler", "MPI_Errhandler_set",
	// persistent requests and matched probes (their handles are ours)
	"MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init", "MPI_Recv_init",
	"MPI_Send_init_c", "MPI_Ssend_init_c", "MPI_Bsend_init_c", "MPI_Rsend_init_c", "MPI_Recv_init_c",
	"MPI_Mprobe", "MPI_Improbe",
}
