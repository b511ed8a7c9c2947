!! timer_tree_type: nested timers told apart by name and position, with the
!! interface of Petaca's module of the same name (used by Truchas), over the
!! profparse timer tree (libprofparse_timer, a Rust library with a C API).
!!
!! A code that uses Petaca's module swaps in this file and links the library:
!!
!!   gfortran -c timer_tree_type.F90
!!   gfortran prog.f90 timer_tree_type.o target/release/libprofparse_timer.a
!!
!! Differences from Petaca's module, all on the safe side (docs/TIMER_TREE.md):
!! * times are kept as integer nanoseconds of a monotonic clock, so short
!!   intervals are not lost to single-precision sums; reads, writes and
!!   serializations never change the state of running timers;
!! * the global tree may be used from several threads (one nesting per thread);
!! * errors other than a misnested stop without STAT (a bad handle, invalid
!!   serialized arrays) write a message naming the procedure to the error
!!   unit and stop with status 1, where Petaca's module fails an assertion
!!   or crashes; writing an empty tree writes nothing, serializing one
!!   returns zero-size arrays;
!! * names are padded to the longest name of the tree, not the longest ever
!!   started, by serialize.
!!
!! Objects of type(timer_tree) must not be assigned (as with Petaca's): the
!! copy would share, and free, the library's tree.

module timer_tree_type

  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_associated, c_f_pointer, &
      c_int, c_size_t, c_double, c_char, c_new_line
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  public :: timer_tree
  public :: start_timer, stop_timer, write_timer_tree, read_timer, reset_timer_tree
  public :: serialize_timer_tree, deserialize_timer_tree

  type :: timer_tree
    private
    type(c_ptr) :: tree = c_null_ptr  ! made on first start or deserialize
  contains
    procedure :: start => tree_start
    procedure :: stop => tree_stop
    procedure :: write => tree_write
    procedure :: read => tree_read
    procedure :: reset => tree_reset
    procedure :: serialize => tree_serialize
    procedure :: deserialize => tree_deserialize
    final :: tree_delete
  end type timer_tree

  ! The C API's status codes and name rules (capi/include/profparse_timer.h).
  integer(c_int), parameter :: PP_TIMER_OK = 0, PP_TIMER_EMPTY = -3
  integer(c_int), parameter :: PP_TIMER_NAMES_BLANK_PADDED = 1

  ! The library's serialized arrays (struct pp_timer_serialized).
  type, bind(c) :: pp_timer_serialized
    integer(c_size_t) :: count
    type(c_ptr) :: tree
    integer(c_size_t) :: name_len
    type(c_ptr) :: names
    type(c_ptr) :: time
  end type pp_timer_serialized

  interface
    function pp_timer_tree_new(name_match) result(tree) bind(c, name='pp_timer_tree_new')
      import :: c_ptr, c_int
      integer(c_int), value :: name_match
      type(c_ptr) :: tree
    end function
    subroutine pp_timer_tree_free(tree) bind(c, name='pp_timer_tree_free')
      import :: c_ptr
      type(c_ptr), value :: tree
    end subroutine
    function pp_timer_set_name_match(tree, rule) result(status) bind(c, name='pp_timer_set_name_match')
      import :: c_ptr, c_int
      type(c_ptr), value :: tree
      integer(c_int), value :: rule
      integer(c_int) :: status
    end function
    function pp_timer_start(tree, name, name_len, handle) result(status) bind(c, name='pp_timer_start')
      import :: c_ptr, c_int, c_size_t, c_char
      type(c_ptr), value :: tree
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: name_len
      integer(c_int), intent(out) :: handle
      integer(c_int) :: status
    end function
    function pp_timer_stop(tree, name, name_len) result(status) bind(c, name='pp_timer_stop')
      import :: c_ptr, c_int, c_size_t, c_char
      type(c_ptr), value :: tree
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), value :: name_len
      integer(c_int) :: status
    end function
    function pp_timer_read(tree, handle, seconds) result(status) bind(c, name='pp_timer_read')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: tree
      integer(c_int), value :: handle
      real(c_double), intent(out) :: seconds
      integer(c_int) :: status
    end function
    function pp_timer_reset(tree) result(status) bind(c, name='pp_timer_reset')
      import :: c_ptr, c_int
      type(c_ptr), value :: tree
      integer(c_int) :: status
    end function
    function pp_timer_write(tree, indent, handle, text, text_len) result(status) bind(c, name='pp_timer_write')
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: tree
      integer(c_int), value :: indent, handle
      type(c_ptr), intent(out) :: text
      integer(c_size_t), intent(out) :: text_len
      integer(c_int) :: status
    end function
    subroutine pp_timer_free(ptr) bind(c, name='pp_timer_free')
      import :: c_ptr
      type(c_ptr), value :: ptr
    end subroutine
    function pp_timer_serialize(tree, out) result(status) bind(c, name='pp_timer_serialize')
      import :: c_ptr, c_int
      type(c_ptr), value :: tree
      type(c_ptr), intent(out) :: out
      integer(c_int) :: status
    end function
    subroutine pp_timer_serialized_free(s) bind(c, name='pp_timer_serialized_free')
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine
    function pp_timer_deserialize(tree, tree_in, tree_len, names, name_stride, time, count) &
        result(status) bind(c, name='pp_timer_deserialize')
      import :: c_ptr, c_int, c_size_t, c_char, c_double
      type(c_ptr), value :: tree
      integer(c_int), intent(in) :: tree_in(*)
      integer(c_size_t), value :: tree_len
      character(kind=c_char), intent(in) :: names(*)
      integer(c_size_t), value :: name_stride
      real(c_double), intent(in) :: time(*)
      integer(c_size_t), value :: count
      integer(c_int) :: status
    end function
    function pp_timer_last_error(buf, cap) result(length) bind(c, name='pp_timer_last_error')
      import :: c_char, c_size_t
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: cap
      integer(c_size_t) :: length
    end function
  end interface

contains

  !!!! The global tree (the library's, shared by all threads) !!!!

  subroutine start_timer(name, handle)
    character(*), intent(in) :: name
    integer, intent(out), optional :: handle
    ! Fortran compares names without trailing blanks; set on every start
    ! so that no initialisation call is needed (it is one store).
    if (pp_timer_set_name_match(c_null_ptr, PP_TIMER_NAMES_BLANK_PADDED) /= PP_TIMER_OK) &
        call fail('start_timer', last_error())
    call start_in(c_null_ptr, name, handle)
  end subroutine

  subroutine stop_timer(name, stat, errmsg)
    character(*), intent(in) :: name
    integer, intent(out), optional :: stat
    character(:), allocatable, intent(out), optional :: errmsg
    integer :: status
    status = stop_in(c_null_ptr, name, present(stat))
    if (present(stat)) stat = status
    ! Assigned here, not in a helper: gfortran 11-12 lose an optional
    ! deferred-length argument passed on (the bug of Petaca's module).
    if (status /= PP_TIMER_OK .and. present(errmsg)) errmsg = last_error()
  end subroutine

  subroutine write_timer_tree(unit, indent, handle)
    integer, intent(in) :: unit, indent
    integer, intent(in), optional :: handle
    call write_in(c_null_ptr, 'write_timer_tree', unit, indent, handle)
  end subroutine

  subroutine read_timer(handle, cpu)
    integer, intent(in) :: handle
    real, intent(out) :: cpu
    call read_in(c_null_ptr, 'read_timer', handle, cpu)
  end subroutine

  subroutine reset_timer_tree()
    if (pp_timer_reset(c_null_ptr) /= PP_TIMER_OK) call fail('reset_timer_tree', last_error())
  end subroutine

  subroutine serialize_timer_tree(tree, name, time)
    integer, allocatable, intent(out) :: tree(:)
    character(:), allocatable, intent(out) :: name(:)
    real, allocatable, intent(out) :: time(:)
    call serialize_in(c_null_ptr, 'serialize_timer_tree', tree, name, time)
  end subroutine

  subroutine deserialize_timer_tree(tree, name, time)
    integer, intent(in) :: tree(:)
    character(*), intent(in) :: name(:)
    real, intent(in) :: time(:)
    call deserialize_in(c_null_ptr, 'deserialize_timer_tree', tree, name, time)
  end subroutine

  !!!! type(timer_tree): the same on an instance of its own !!!!

  subroutine tree_start(this, name, handle)
    class(timer_tree), intent(inout) :: this
    character(*), intent(in) :: name
    integer, intent(out), optional :: handle
    call ensure(this)
    call start_in(this%tree, name, handle)
  end subroutine

  subroutine tree_stop(this, name, stat, errmsg)
    class(timer_tree), intent(inout) :: this
    character(*), intent(in) :: name
    integer, intent(out), optional :: stat
    character(:), allocatable, intent(out), optional :: errmsg
    integer :: status
    call ensure(this)
    status = stop_in(this%tree, name, present(stat))
    if (present(stat)) stat = status
    if (status /= PP_TIMER_OK .and. present(errmsg)) errmsg = last_error()
  end subroutine

  subroutine tree_write(this, unit, indent, handle)
    class(timer_tree), intent(in) :: this
    integer, intent(in) :: unit, indent
    integer, intent(in), optional :: handle
    if (c_associated(this%tree)) then
      call write_in(this%tree, 'timer_tree%write', unit, indent, handle)
    else if (present(handle)) then
      call fail('timer_tree%write', 'no timer has this handle: the tree has no timers')
    end if
  end subroutine

  subroutine tree_read(this, handle, cpu)
    class(timer_tree), intent(in) :: this
    integer, intent(in) :: handle
    real, intent(out) :: cpu
    if (.not. c_associated(this%tree)) &
        call fail('timer_tree%read', 'no timer has this handle: the tree has no timers')
    call read_in(this%tree, 'timer_tree%read', handle, cpu)
  end subroutine

  subroutine tree_reset(this)
    class(timer_tree), intent(inout) :: this
    if (c_associated(this%tree)) then
      if (pp_timer_reset(this%tree) /= PP_TIMER_OK) call fail('timer_tree%reset', last_error())
    end if
  end subroutine

  subroutine tree_serialize(this, tree, name, time)
    class(timer_tree), intent(in) :: this
    integer, allocatable, intent(out) :: tree(:)
    character(:), allocatable, intent(out) :: name(:)
    real, allocatable, intent(out) :: time(:)
    if (c_associated(this%tree)) then
      call serialize_in(this%tree, 'timer_tree%serialize', tree, name, time)
    else
      allocate(tree(0), time(0))
      allocate(character(len=0) :: name(0))
    end if
  end subroutine

  subroutine tree_deserialize(this, tree, name, time)
    class(timer_tree), intent(inout) :: this
    integer, intent(in) :: tree(:)
    character(*), intent(in) :: name(:)
    real, intent(in) :: time(:)
    call ensure(this)
    call deserialize_in(this%tree, 'timer_tree%deserialize', tree, name, time)
  end subroutine

  impure elemental subroutine tree_delete(this)
    type(timer_tree), intent(inout) :: this
    if (c_associated(this%tree)) call pp_timer_tree_free(this%tree)
    this%tree = c_null_ptr
  end subroutine

  subroutine ensure(this)
    class(timer_tree), intent(inout) :: this
    if (.not. c_associated(this%tree)) then
      this%tree = pp_timer_tree_new(PP_TIMER_NAMES_BLANK_PADDED)
      if (.not. c_associated(this%tree)) call fail('timer_tree', last_error())
    end if
  end subroutine

  !!!! The operations, on the library tree `tree` (c_null_ptr: global) !!!!

  subroutine start_in(tree, name, handle)
    type(c_ptr), intent(in) :: tree
    character(*), intent(in) :: name
    integer, intent(out), optional :: handle
    integer(c_int) :: h
    if (pp_timer_start(tree, name, len(name, kind=c_size_t), h) /= PP_TIMER_OK) &
        call fail('start_timer', last_error())
    if (present(handle)) handle = h
  end subroutine

  !! The status of stopping `name`; without a STAT to return it in, a
  !! failure ends the program as Petaca's module does: the message alone on
  !! the error unit, then exit status 1.
  integer function stop_in(tree, name, has_stat) result(status)
    type(c_ptr), intent(in) :: tree
    character(*), intent(in) :: name
    logical, intent(in) :: has_stat
    status = pp_timer_stop(tree, name, len(name, kind=c_size_t))
    if (status /= PP_TIMER_OK .and. .not. has_stat) then
      write(error_unit, '(a)') last_error()
      stop 1
    end if
  end function

  subroutine write_in(tree, caller, unit, indent, handle)
    type(c_ptr), intent(in) :: tree
    character(*), intent(in) :: caller
    integer, intent(in) :: unit, indent
    integer, intent(in), optional :: handle
    integer(c_int) :: status, h
    type(c_ptr) :: text
    integer(c_size_t) :: n
    character(kind=c_char), pointer :: chars(:)
    character(:), allocatable :: lines
    integer :: first, i
    h = 0  ! the whole tree
    if (present(handle)) then
      if (handle < 1) call fail(caller, 'handles are 1, 2, 3, ...')
      h = handle
    end if
    if (indent < 0) call fail(caller, 'the indent is negative')
    status = pp_timer_write(tree, int(indent, c_int), h, text, n)
    if (status == PP_TIMER_EMPTY) return
    if (status /= PP_TIMER_OK) call fail(caller, last_error())
    call c_f_pointer(text, chars, [n])
    allocate(character(len=n) :: lines)
    do i = 1, int(n)
      lines(i:i) = chars(i)
    end do
    call pp_timer_free(text)
    first = 1
    do i = 1, len(lines)
      if (lines(i:i) == c_new_line) then
        write(unit, '(a)') lines(first:i-1)
        first = i + 1
      end if
    end do
  end subroutine

  subroutine read_in(tree, caller, handle, cpu)
    type(c_ptr), intent(in) :: tree
    character(*), intent(in) :: caller
    integer, intent(in) :: handle
    real, intent(out) :: cpu
    real(c_double) :: seconds
    if (pp_timer_read(tree, int(handle, c_int), seconds) /= PP_TIMER_OK) &
        call fail(caller, last_error())
    cpu = real(seconds)
  end subroutine

  subroutine serialize_in(tree, caller, tree_out, name, time)
    type(c_ptr), intent(in) :: tree
    character(*), intent(in) :: caller
    integer, allocatable, intent(out) :: tree_out(:)
    character(:), allocatable, intent(out) :: name(:)
    real, allocatable, intent(out) :: time(:)
    type(c_ptr) :: arrays
    type(pp_timer_serialized), pointer :: s
    integer(c_int), pointer :: c_tree(:)
    real(c_double), pointer :: c_time(:)
    character(kind=c_char), pointer :: c_names(:)
    integer(c_int) :: status
    integer :: n, width, k, i
    status = pp_timer_serialize(tree, arrays)
    if (status == PP_TIMER_EMPTY) then
      allocate(tree_out(0), time(0))
      allocate(character(len=0) :: name(0))
      return
    end if
    if (status /= PP_TIMER_OK) call fail(caller, last_error())
    call c_f_pointer(arrays, s)
    n = int(s%count)
    width = int(s%name_len)
    call c_f_pointer(s%tree, c_tree, [2*n])
    call c_f_pointer(s%time, c_time, [n])
    call c_f_pointer(s%names, c_names, [n*width])
    allocate(tree_out(2*n), time(n))
    allocate(character(len=width) :: name(n))
    tree_out = int(c_tree)
    time = real(c_time)
    do k = 1, n
      do i = 1, width
        name(k)(i:i) = c_names((k-1)*width + i)
      end do
    end do
    call pp_timer_serialized_free(arrays)
  end subroutine

  subroutine deserialize_in(tree, caller, tree_in, name, time)
    type(c_ptr), intent(in) :: tree
    character(*), intent(in) :: caller
    integer, intent(in) :: tree_in(:)
    character(*), intent(in) :: name(:)
    real, intent(in) :: time(:)
    integer(c_int), allocatable :: c_tree(:)
    real(c_double), allocatable :: c_time(:)
    character(kind=c_char), allocatable :: c_names(:)
    integer :: width, k, i
    character(32) :: sizes(2)
    if (size(name) /= size(time)) then
      write(sizes(1), '(i0)') size(name)
      write(sizes(2), '(i0)') size(time)
      call fail(caller, 'name has ' // trim(sizes(1)) // ' entries but time has ' // &
          trim(sizes(2)) // ': both need one entry per timer')
    end if
    width = len(name)
    allocate(c_tree(size(tree_in)), c_time(size(time)), c_names(width*size(name)))
    c_tree = int(tree_in, c_int)
    c_time = real(time, c_double)
    do k = 1, size(name)
      do i = 1, width
        c_names((k-1)*width + i) = name(k)(i:i)
      end do
    end do
    if (pp_timer_deserialize(tree, c_tree, size(c_tree, kind=c_size_t), c_names, &
        int(width, c_size_t), c_time, size(c_time, kind=c_size_t)) /= PP_TIMER_OK) &
        call fail(caller, last_error())
  end subroutine

  !! The message of this thread's last failed library call.
  function last_error() result(message)
    character(:), allocatable :: message
    character(kind=c_char) :: probe(1)
    character(kind=c_char), allocatable :: buf(:)
    integer(c_size_t) :: n
    integer :: i
    n = pp_timer_last_error(probe, 0_c_size_t)
    allocate(buf(n + 1))
    n = pp_timer_last_error(buf, n + 1)
    allocate(character(len=n) :: message)
    do i = 1, int(n)
      message(i:i) = buf(i)
    end do
  end function

  !! An error the interface has no STAT for: say so on the error unit, stop.
  subroutine fail(caller, message)
    character(*), intent(in) :: caller, message
    write(error_unit, '(a)') 'timer_tree_type: ' // caller // ': ' // message
    stop 1
  end subroutine

end module timer_tree_type
